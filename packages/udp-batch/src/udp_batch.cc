// Batched UDP for the resolver (docs/decisions.md "Batched UDP"): one non-blocking socket watched
// by a uv_poll handle on the calling thread's loop; when readable, recvmmsg(2) drains up to a batch
// of datagrams into the caller's arena, JavaScript is called once for the whole batch and writes
// its synchronous answers into the output arena, and sendmmsg(2) sends them in one system call.
// Linux only (recvmmsg / sendmmsg); elsewhere the build fails and the resolver uses node:dgram.
//
// Address record (ADDR_BYTES per slot, shared with src/index.ts): [0] family 4 or 6, [1] 0,
// [2..3] port big-endian, [4..19] address (IPv4 in [4..7]; an IPv4-mapped IPv6 source is given as
// family 4, so JavaScript sees the canonical address).
#include <node_api.h>
#include <uv.h>
#include <v8.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <netinet/in.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <vector>

namespace {

constexpr int ADDR_BYTES = 20;
// Batches drained per readable event before yielding to the loop (level-triggered poll fires again).
constexpr int MAX_BATCHES_PER_EVENT = 4;

struct Sock {
  napi_env env;
  int fd;
  int family;
  bool closed;
  bool in_callback;
  uv_poll_t* poll;
  int batch;
  size_t in_slot;
  size_t out_slot;
  uint8_t* in;
  uint8_t* out;
  int32_t* lens;  // [0, batch): received lengths (-1: truncated); [batch, 2 batch): answer lengths
  uint8_t* addrs;
  napi_ref in_ref, out_ref, lens_ref, addrs_ref, cb_ref, resource_ref;
  napi_async_context actx;
  // Registered at open, removed once the poll handle is closed: Node then waits for our close
  // callback before it tears the thread's environment down and unloads this library.
  napi_async_cleanup_hook_handle cleanup;
  // Owners: the poll handle until libuv closed it, and the JavaScript handle until collected.
  int owners;
  struct mmsghdr* rmsgs;
  struct iovec* riov;
  struct sockaddr_storage* rnames;
  struct mmsghdr* smsgs;
  struct iovec* siov;
  double batches, received, sent, send_errors, truncated, recv_errors;
};

#define CHECK(call)                                   \
  do {                                                \
    if ((call) != napi_ok) return nullptr;            \
  } while (0)

napi_value ThrowErrno(napi_env env, const char* what, int err) {
  const char* code = nullptr;
  switch (err) {
    case EADDRINUSE: code = "EADDRINUSE"; break;
    case EADDRNOTAVAIL: code = "EADDRNOTAVAIL"; break;
    case EACCES: code = "EACCES"; break;
    case EAFNOSUPPORT: code = "EAFNOSUPPORT"; break;
    case EINVAL: code = "EINVAL"; break;
    default: code = "ERR_UDP_BATCH"; break;
  }
  char msg[160];
  snprintf(msg, sizeof msg, "%s: %s", what, strerror(err));
  napi_value c, m, e;
  napi_create_string_utf8(env, code, NAPI_AUTO_LENGTH, &c);
  napi_create_string_utf8(env, msg, NAPI_AUTO_LENGTH, &m);
  napi_create_error(env, c, m, &e);
  napi_throw(env, e);
  return nullptr;
}

napi_value ThrowType(napi_env env, const char* msg) {
  napi_throw_type_error(env, nullptr, msg);
  return nullptr;
}

void FreeSock(Sock* s) {
  free(s->rmsgs);
  free(s->riov);
  free(s->rnames);
  free(s->smsgs);
  free(s->siov);
  delete s;
}

void Release(Sock* s) {
  if (--s->owners == 0) FreeSock(s);
}

void OnPollClosed(uv_handle_t* h) {
  Sock* s = static_cast<Sock*>(h->data);
  free(h);
  if (s == nullptr) return;
  napi_async_cleanup_hook_handle cleanup = s->cleanup;
  s->poll = nullptr;
  Release(s);
  if (cleanup != nullptr) napi_remove_async_cleanup_hook(cleanup);
}

void FinalizeHandle(napi_env, void* data, void*) {
  Release(static_cast<Sock*>(data));
}

// Stops watching and closes the descriptor; the Sock itself is freed once libuv closed the handle.
void Shutdown(Sock* s, bool env_alive) {
  if (s->closed) return;
  s->closed = true;
  if (env_alive) {
    napi_ref* refs[] = {&s->in_ref, &s->out_ref, &s->lens_ref, &s->addrs_ref, &s->cb_ref, &s->resource_ref};
    for (napi_ref* r : refs) {
      if (*r != nullptr) napi_delete_reference(s->env, *r);
      *r = nullptr;
    }
    // Closed from inside the batch callback: the context is still in use, OnReadable destroys it.
    if (s->actx != nullptr && !s->in_callback) {
      napi_async_destroy(s->env, s->actx);
      s->actx = nullptr;
    }
  }
  uv_poll_stop(s->poll);
  close(s->fd);
  s->fd = -1;
  uv_close(reinterpret_cast<uv_handle_t*>(s->poll), OnPollClosed);
}

// The environment is going away (a worker ending) with the socket still open.
void EnvCleanup(napi_async_cleanup_hook_handle handle, void* arg) {
  Sock* s = static_cast<Sock*>(arg);
  s->cleanup = handle;
  Shutdown(s, false);  // no-op when already closing: OnPollClosed signals completion either way
}

// Fills the address record of slot i from a received source address.
void WriteAddr(uint8_t* rec, const struct sockaddr_storage* ss) {
  memset(rec, 0, ADDR_BYTES);
  if (ss->ss_family == AF_INET) {
    const auto* a = reinterpret_cast<const struct sockaddr_in*>(ss);
    rec[0] = 4;
    memcpy(rec + 2, &a->sin_port, 2);
    memcpy(rec + 4, &a->sin_addr, 4);
  } else if (ss->ss_family == AF_INET6) {
    const auto* a = reinterpret_cast<const struct sockaddr_in6*>(ss);
    memcpy(rec + 2, &a->sin6_port, 2);
    if (IN6_IS_ADDR_V4MAPPED(&a->sin6_addr)) {
      rec[0] = 4;
      memcpy(rec + 4, a->sin6_addr.s6_addr + 12, 4);
    } else {
      rec[0] = 6;
      memcpy(rec + 4, &a->sin6_addr, 16);
    }
  }
}

// The socket address of an address record, for this socket's family (IPv4 as mapped on IPv6).
socklen_t ReadAddr(const Sock* s, const uint8_t* rec, struct sockaddr_storage* ss) {
  memset(ss, 0, sizeof *ss);
  if (s->family == AF_INET) {
    if (rec[0] != 4) return 0;
    auto* a = reinterpret_cast<struct sockaddr_in*>(ss);
    a->sin_family = AF_INET;
    memcpy(&a->sin_port, rec + 2, 2);
    memcpy(&a->sin_addr, rec + 4, 4);
    return sizeof *a;
  }
  auto* a = reinterpret_cast<struct sockaddr_in6*>(ss);
  a->sin6_family = AF_INET6;
  memcpy(&a->sin6_port, rec + 2, 2);
  if (rec[0] == 4) {
    a->sin6_addr.s6_addr[10] = 0xff;
    a->sin6_addr.s6_addr[11] = 0xff;
    memcpy(a->sin6_addr.s6_addr + 12, rec + 4, 4);
  } else if (rec[0] == 6) {
    memcpy(&a->sin6_addr, rec + 4, 16);
  } else {
    return 0;
  }
  return sizeof *a;
}

// Sends the answers JavaScript wrote for slots [0, n): one sendmmsg per run, skipping a failed one.
void SendBatch(Sock* s, int n) {
  int k = 0;
  for (int i = 0; i < n; i++) {
    int32_t len = s->lens[s->batch + i];
    if (len <= 0 || static_cast<size_t>(len) > s->out_slot) continue;
    s->siov[k].iov_base = s->out + static_cast<size_t>(i) * s->out_slot;
    s->siov[k].iov_len = static_cast<size_t>(len);
    struct msghdr* h = &s->smsgs[k].msg_hdr;
    h->msg_name = &s->rnames[i];
    h->msg_namelen = s->rmsgs[i].msg_hdr.msg_namelen;
    h->msg_iov = &s->siov[k];
    h->msg_iovlen = 1;
    h->msg_control = nullptr;
    h->msg_controllen = 0;
    h->msg_flags = 0;
    k++;
  }
  int done = 0;
  while (done < k) {
    int r = sendmmsg(s->fd, s->smsgs + done, static_cast<unsigned>(k - done), MSG_DONTWAIT);
    if (r < 0) {
      if (errno == EINTR) continue;
      // EAGAIN (send buffer full) or a per-destination error: drop this answer, as dgram would.
      s->send_errors++;
      done++;
      continue;
    }
    s->sent += r;
    done += r;
  }
}

void OnReadable(uv_poll_t* handle, int status, int events) {
  Sock* s = static_cast<Sock*>(handle->data);
  if (s == nullptr || s->closed) return;
  napi_env env = s->env;
  napi_handle_scope scope;
  if (napi_open_handle_scope(env, &scope) != napi_ok) return;
  napi_value cb, resource, argv[1], result;
  napi_get_reference_value(env, s->cb_ref, &cb);
  napi_get_reference_value(env, s->resource_ref, &resource);
  if (status < 0) {
    // The descriptor itself failed (libuv reports EBADF and the like): stop rather than spin.
    s->recv_errors++;
    uv_poll_stop(handle);
    napi_close_handle_scope(env, scope);
    return;
  }
  if ((events & UV_READABLE) == 0) {
    napi_close_handle_scope(env, scope);
    return;
  }
  for (int round = 0; round < MAX_BATCHES_PER_EVENT && !s->closed; round++) {
    for (int i = 0; i < s->batch; i++) {
      s->rmsgs[i].msg_hdr.msg_namelen = sizeof(struct sockaddr_storage);
      s->rmsgs[i].msg_hdr.msg_flags = 0;
      s->rmsgs[i].msg_len = 0;
    }
    int n = recvmmsg(s->fd, s->rmsgs, static_cast<unsigned>(s->batch), MSG_DONTWAIT, nullptr);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno != EAGAIN && errno != EWOULDBLOCK) s->recv_errors++;
      break;
    }
    if (n == 0) break;
    s->batches++;
    s->received += n;
    for (int i = 0; i < n; i++) {
      const struct msghdr* h = &s->rmsgs[i].msg_hdr;
      bool trunc = (h->msg_flags & MSG_TRUNC) != 0;
      if (trunc) s->truncated++;
      s->lens[i] = trunc ? -1 : static_cast<int32_t>(s->rmsgs[i].msg_len);
      s->lens[s->batch + i] = 0;
      WriteAddr(s->addrs + static_cast<size_t>(i) * ADDR_BYTES, &s->rnames[i]);
    }
    napi_create_int32(env, n, &argv[0]);
    s->in_callback = true;
    napi_status st = napi_make_callback(env, s->actx, resource, cb, 1, argv, &result);
    s->in_callback = false;
    if (st == napi_pending_exception) {
      napi_value exc;
      napi_get_and_clear_last_exception(env, &exc);
      napi_fatal_exception(env, exc);
    }
    if (s->closed) {
      if (s->actx != nullptr) napi_async_destroy(env, s->actx);
      s->actx = nullptr;
      break;
    }
    SendBatch(s, n);
    if (n < s->batch) break;
  }
  napi_close_handle_scope(env, scope);
}

bool GetBytes(napi_env env, napi_value v, uint8_t** data, size_t* len) {
  bool is;
  if (napi_is_typedarray(env, v, &is) != napi_ok || !is) return false;
  napi_typedarray_type t;
  void* d;
  napi_value ab;
  size_t off;
  if (napi_get_typedarray_info(env, v, &t, len, &d, &ab, &off) != napi_ok) return false;
  if (t != napi_uint8_array) return false;
  *data = static_cast<uint8_t*>(d);
  return true;
}

Sock* Unwrap(napi_env env, napi_value v) {
  void* p = nullptr;
  napi_valuetype t;
  if (napi_typeof(env, v, &t) != napi_ok || t != napi_external) return nullptr;
  if (napi_get_value_external(env, v, &p) != napi_ok) return nullptr;
  return static_cast<Sock*>(p);
}

napi_value Ref(napi_env env, napi_value v, napi_ref* out) {
  if (napi_create_reference(env, v, 1, out) != napi_ok) return nullptr;
  return v;
}

// open(host, port, rcvbuf, reusePort, inArena, outArena, inSlot, outSlot, lens, addrs, onBatch)
napi_value Open(napi_env env, napi_callback_info info) {
  size_t argc = 11;
  napi_value a[11];
  CHECK(napi_get_cb_info(env, info, &argc, a, nullptr, nullptr));
  if (argc < 11) return ThrowType(env, "udp-batch open: 11 arguments expected");
  char host[64];
  size_t hostLen;
  if (napi_get_value_string_utf8(env, a[0], host, sizeof host, &hostLen) != napi_ok)
    return ThrowType(env, "udp-batch open: host must be a string");
  int32_t port, rcvbuf, inSlot, outSlot;
  bool reuse;
  if (napi_get_value_int32(env, a[1], &port) != napi_ok || port < 0 || port > 65535)
    return ThrowType(env, "udp-batch open: port must be 0..65535");
  if (napi_get_value_int32(env, a[2], &rcvbuf) != napi_ok || rcvbuf < 0)
    return ThrowType(env, "udp-batch open: rcvbuf must be a non-negative integer");
  if (napi_get_value_bool(env, a[3], &reuse) != napi_ok) return ThrowType(env, "udp-batch open: reusePort must be a boolean");
  uint8_t *in, *out, *addrs;
  size_t inLen, outLen, addrsLen;
  if (!GetBytes(env, a[4], &in, &inLen) || !GetBytes(env, a[5], &out, &outLen) || !GetBytes(env, a[9], &addrs, &addrsLen))
    return ThrowType(env, "udp-batch open: arenas and addresses must be Uint8Arrays");
  if (napi_get_value_int32(env, a[6], &inSlot) != napi_ok || inSlot <= 0 ||
      napi_get_value_int32(env, a[7], &outSlot) != napi_ok || outSlot <= 0)
    return ThrowType(env, "udp-batch open: slot sizes must be positive");
  bool isTa;
  napi_typedarray_type lt;
  size_t lensCount, lensOff;
  void* lensData;
  napi_value lensAb;
  if (napi_is_typedarray(env, a[8], &isTa) != napi_ok || !isTa ||
      napi_get_typedarray_info(env, a[8], &lt, &lensCount, &lensData, &lensAb, &lensOff) != napi_ok || lt != napi_int32_array)
    return ThrowType(env, "udp-batch open: lens must be an Int32Array");
  int batch = static_cast<int>(lensCount / 2);
  if (batch < 1 || batch > 1024 || inLen < static_cast<size_t>(batch) * inSlot || outLen < static_cast<size_t>(batch) * outSlot ||
      addrsLen < static_cast<size_t>(batch) * ADDR_BYTES)
    return ThrowType(env, "udp-batch open: arenas smaller than the batch");
  napi_valuetype cbt;
  if (napi_typeof(env, a[10], &cbt) != napi_ok || cbt != napi_function) return ThrowType(env, "udp-batch open: onBatch must be a function");

  struct sockaddr_storage ss;
  memset(&ss, 0, sizeof ss);
  socklen_t sslen;
  int family;
  auto* a6 = reinterpret_cast<struct sockaddr_in6*>(&ss);
  auto* a4 = reinterpret_cast<struct sockaddr_in*>(&ss);
  if (inet_pton(AF_INET6, host, &a6->sin6_addr) == 1) {
    family = AF_INET6;
    a6->sin6_family = AF_INET6;
    a6->sin6_port = htons(static_cast<uint16_t>(port));
    sslen = sizeof *a6;
  } else if (inet_pton(AF_INET, host, &a4->sin_addr) == 1) {
    family = AF_INET;
    a4->sin_family = AF_INET;
    a4->sin_port = htons(static_cast<uint16_t>(port));
    sslen = sizeof *a4;
  } else {
    return ThrowErrno(env, "udp-batch open: host is not an IP address", EINVAL);
  }
  int fd = socket(family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return ThrowErrno(env, "udp-batch socket", errno);
  int one = 1, zero = 0;
  if (family == AF_INET6) setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero);  // dual stack, as node:dgram
  if (reuse && setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one) != 0) {
    int e = errno;
    close(fd);
    return ThrowErrno(env, "udp-batch SO_REUSEPORT", e);
  }
  // A refused size keeps the system default, as the dgram path does (the JS side logs the effective size).
  if (rcvbuf > 0) setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
  if (bind(fd, reinterpret_cast<struct sockaddr*>(&ss), sslen) != 0) {
    int e = errno;
    close(fd);
    char what[120];
    snprintf(what, sizeof what, "bind %s:%d", host, port);
    return ThrowErrno(env, what, e);
  }

  Sock* s = new Sock();
  memset(s, 0, sizeof *s);
  s->env = env;
  s->fd = fd;
  s->family = family;
  s->batch = batch;
  s->in_slot = static_cast<size_t>(inSlot);
  s->out_slot = static_cast<size_t>(outSlot);
  s->in = in;
  s->out = out;
  s->lens = static_cast<int32_t*>(lensData);
  s->addrs = addrs;
  s->rmsgs = static_cast<struct mmsghdr*>(calloc(batch, sizeof(struct mmsghdr)));
  s->riov = static_cast<struct iovec*>(calloc(batch, sizeof(struct iovec)));
  s->rnames = static_cast<struct sockaddr_storage*>(calloc(batch, sizeof(struct sockaddr_storage)));
  s->smsgs = static_cast<struct mmsghdr*>(calloc(batch, sizeof(struct mmsghdr)));
  s->siov = static_cast<struct iovec*>(calloc(batch, sizeof(struct iovec)));
  for (int i = 0; i < batch; i++) {
    s->riov[i].iov_base = in + static_cast<size_t>(i) * s->in_slot;
    s->riov[i].iov_len = s->in_slot;
    s->rmsgs[i].msg_hdr.msg_name = &s->rnames[i];
    s->rmsgs[i].msg_hdr.msg_iov = &s->riov[i];
    s->rmsgs[i].msg_hdr.msg_iovlen = 1;
  }
  Ref(env, a[4], &s->in_ref);
  Ref(env, a[5], &s->out_ref);
  Ref(env, a[8], &s->lens_ref);
  Ref(env, a[9], &s->addrs_ref);
  Ref(env, a[10], &s->cb_ref);
  napi_value resource, name;
  napi_create_object(env, &resource);
  Ref(env, resource, &s->resource_ref);
  napi_create_string_utf8(env, "UDPBATCH", NAPI_AUTO_LENGTH, &name);
  napi_async_init(env, resource, name, &s->actx);

  uv_loop_t* loop;
  napi_get_uv_event_loop(env, &loop);
  s->poll = static_cast<uv_poll_t*>(calloc(1, sizeof(uv_poll_t)));
  uv_poll_init(loop, s->poll, fd);
  s->poll->data = s;
  uv_poll_start(s->poll, UV_READABLE, OnReadable);
  napi_add_async_cleanup_hook(env, EnvCleanup, s, &s->cleanup);

  napi_value handle;
  s->owners = 2;
  CHECK(napi_create_external(env, s, FinalizeHandle, nullptr, &handle));
  return handle;
}

// close(handle): stops receiving and closes the socket. Safe to call twice.
napi_value Close(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value a[1];
  CHECK(napi_get_cb_info(env, info, &argc, a, nullptr, nullptr));
  Sock* s = argc == 1 ? Unwrap(env, a[0]) : nullptr;
  if (s == nullptr) return ThrowType(env, "udp-batch close: handle expected");
  if (s->closed) return nullptr;
  Shutdown(s, true);
  return nullptr;
}

// sendTo(handle, bytes, addrRecord): one datagram outside a batch (answers that came later).
// Returns 0, or the errno of a failed send (the datagram is dropped, as dgram would).
napi_value SendTo(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value a[3];
  CHECK(napi_get_cb_info(env, info, &argc, a, nullptr, nullptr));
  Sock* s = argc == 3 ? Unwrap(env, a[0]) : nullptr;
  uint8_t *data, *rec;
  size_t len, recLen;
  if (s == nullptr || !GetBytes(env, a[1], &data, &len) || !GetBytes(env, a[2], &rec, &recLen) || recLen < ADDR_BYTES)
    return ThrowType(env, "udp-batch sendTo: handle, bytes and address record expected");
  int result = EBADF;
  if (!s->closed) {
    struct sockaddr_storage ss;
    socklen_t sl = ReadAddr(s, rec, &ss);
    if (sl == 0) {
      result = EAFNOSUPPORT;
    } else {
      ssize_t r;
      do r = sendto(s->fd, data, len, MSG_DONTWAIT, reinterpret_cast<struct sockaddr*>(&ss), sl);
      while (r < 0 && errno == EINTR);
      result = r < 0 ? errno : 0;
      if (r < 0) s->send_errors++;
      else s->sent++;
    }
  }
  napi_value out;
  CHECK(napi_create_int32(env, result, &out));
  return out;
}

void Set(napi_env env, napi_value obj, const char* key, double v) {
  napi_value n;
  napi_create_double(env, v, &n);
  napi_set_named_property(env, obj, key, n);
}

// info(handle): { port, family (4 | 6), recvBufferBytes, batches, received, sent, sendErrors, truncated, recvErrors }
napi_value Info(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value a[1];
  CHECK(napi_get_cb_info(env, info, &argc, a, nullptr, nullptr));
  Sock* s = argc == 1 ? Unwrap(env, a[0]) : nullptr;
  if (s == nullptr) return ThrowType(env, "udp-batch info: handle expected");
  napi_value obj;
  CHECK(napi_create_object(env, &obj));
  int port = 0, rcv = 0;
  if (!s->closed) {
    struct sockaddr_storage ss;
    socklen_t sl = sizeof ss;
    if (getsockname(s->fd, reinterpret_cast<struct sockaddr*>(&ss), &sl) == 0) {
      port = ntohs(ss.ss_family == AF_INET6 ? reinterpret_cast<struct sockaddr_in6*>(&ss)->sin6_port
                                            : reinterpret_cast<struct sockaddr_in*>(&ss)->sin_port);
    }
    socklen_t rl = sizeof rcv;
    getsockopt(s->fd, SOL_SOCKET, SO_RCVBUF, &rcv, &rl);
  }
  Set(env, obj, "port", port);
  Set(env, obj, "family", s->family == AF_INET6 ? 6 : 4);
  Set(env, obj, "recvBufferBytes", rcv);
  Set(env, obj, "batches", s->batches);
  Set(env, obj, "received", s->received);
  Set(env, obj, "sent", s->sent);
  Set(env, obj, "sendErrors", s->send_errors);
  Set(env, obj, "truncated", s->truncated);
  Set(env, obj, "recvErrors", s->recv_errors);
  return obj;
}

// idleThisThread(): moves the calling thread to SCHED_IDLE (sched(7)), which runs it only when no
// other runnable thread wants its core: the query-log writer thread, whose rows wait in memory or
// in the spool while the resolving thread answers (docs/decisions.md "Query-log spool"). Lowering a
// thread's own priority needs no privilege. Returns 0, or the errno of sched_setscheduler(2).
// idleThread(tid): the same for thread `tid` of this process (0: the calling thread), e.g. the
// runtime's helper threads (V8's platform workers) listed in /proc/self/task at start.
napi_value IdleThisThread(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value a[1];
  CHECK(napi_get_cb_info(env, info, &argc, a, nullptr, nullptr));
  int32_t tid = 0;
  if (argc >= 1 && (napi_get_value_int32(env, a[0], &tid) != napi_ok || tid < 0))
    return ThrowType(env, "udp-batch idleThread: a thread id (0 or more) expected");
  int result = 0;
#ifdef SCHED_IDLE
  struct sched_param param;
  memset(&param, 0, sizeof param);
  if (sched_setscheduler(tid, SCHED_IDLE, &param) != 0) result = errno;
#else
  result = ENOSYS;
#endif
  napi_value out;
  CHECK(napi_create_int32(env, result, &out));
  return out;
}

// trimHeap(): gives the C heap's free pages back to the kernel (glibc malloc_trim(3), every arena).
// glibc keeps freed memory in its arenas for reuse; after the resolver's first snapshot load the
// loaders' freed buffers and SQLite's pages sit there as resident memory (bench/README.md
// "Resolver memory"). Returns 1 when memory was released, 0 when none could be, -1 without glibc.
napi_value TrimHeap(napi_env env, napi_callback_info) {
  int result = -1;
#ifdef __GLIBC__
  result = malloc_trim(0);
#endif
  napi_value out;
  CHECK(napi_create_int32(env, result, &out));
  return out;
}

// tuneHeap(trimThresholdBytes, mmapThresholdBytes, arenaMax): glibc mallopt(3) M_TRIM_THRESHOLD,
// M_MMAP_THRESHOLD and M_ARENA_MAX, each left as it is when -1. Setting either threshold turns off
// glibc's dynamic thresholds: freeing one large mmapped block (a loader's buffer, a module's source)
// otherwise raises the mmap threshold to its size and the trim threshold to twice that, up to 32 /
// 64 MiB, and the main heap's freed top is kept (bench/README.md "Resolver memory", round 7).
// M_ARENA_MAX bounds the arenas of threads that first allocate after the call. Returns 1 when the
// values were set, 0 when glibc refused one, -1 without glibc.
napi_value TuneHeap(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value args[3];
  CHECK(napi_get_cb_info(env, info, &argc, args, nullptr, nullptr));
  double values[3] = {0, 0, 0};
  const double min[3] = {0, 0, 1};
  const double max[3] = {INT32_MAX, 32 * 1024 * 1024, 1024};
  bool valid = argc >= 3;
  for (size_t i = 0; valid && i < 3; i++) {
    valid = napi_get_value_double(env, args[i], &values[i]) == napi_ok &&
            values[i] == static_cast<double>(static_cast<int64_t>(values[i])) &&
            (values[i] == -1 || (values[i] >= min[i] && values[i] <= max[i]));
  }
  if (!valid) {
    napi_throw_type_error(env, nullptr,
                          "tuneHeap(trimThresholdBytes, mmapThresholdBytes, arenaMax): whole numbers, trim 0 to "
                          "2^31-1, mmap 0 to 32 MiB, arenas 1 to 1024, or -1 to leave one as it is");
    return nullptr;
  }
  int result = -1;
#ifdef __GLIBC__
  const int params[3] = {M_TRIM_THRESHOLD, M_MMAP_THRESHOLD, M_ARENA_MAX};
  result = 1;
  for (size_t i = 0; i < 3; i++) {
    if (values[i] != -1 && mallopt(params[i], static_cast<int>(values[i])) != 1) result = 0;
  }
#endif
  napi_value out;
  CHECK(napi_create_int32(env, result, &out));
  return out;
}

// releaseIsolateMemory(): V8's LowMemoryNotification on the calling thread's isolate: full
// collections that compact the old generation, shrink the young generation to its minimum and
// return the freed pages at once. After a snapshot load the young generation has grown to its
// maximum (32 MB without --max-semi-space-size) and the loaders' garbage is spread over old-space
// pages that one ordinary collection leaves committed (bench/README.md "Resolver memory", round 8).
// The only V8 API this addon calls: N-API has no equivalent, and the addon is built from source
// against the running node's headers. Pauses the thread for the collections (≈ 50–100 ms).
napi_value ReleaseIsolateMemory(napi_env env, napi_callback_info) {
  v8::Isolate* isolate = v8::Isolate::GetCurrent();
  if (isolate != nullptr) isolate->LowMemoryNotification();
  napi_value out;
  CHECK(napi_get_boolean(env, isolate != nullptr, &out));
  return out;
}

// releaseExecutablePages(): takes out of the resident set the pages of the running executable (node)
// that are only read: its code and read-only data, of which startup touches far more than a
// resolver then uses (bootstrap code, the startup snapshot, ICU tables: ≈ 30 of node's 41 MB;
// bench/README.md "Resolver memory", round 8). madvise(2) MADV_DONTNEED on a private file mapping
// that holds no written page unmaps its pages; the next access maps the page back from the page
// cache (a minor fault), so what is in use returns and stays. A mapping that is writable or holds
// a written (anonymous) page — RELRO after relocation, a debugger's breakpoint — is left alone:
// discarding it would bring back the file's bytes. Returns the bytes that were resident in the
// mappings released, or -1 when /proc/self/smaps or /proc/self/exe cannot be read (not Linux).
napi_value ReleaseExecutablePages(napi_env env, napi_callback_info) {
  double released = -1;
  char exe[4096];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  FILE* smaps = n > 0 ? fopen("/proc/self/smaps", "re") : nullptr;
  if (smaps != nullptr) {
    exe[n] = 0;
    struct Range {
      uintptr_t start, end;
      double rss;
    };
    std::vector<Range> ranges;
    bool candidate = false;
    Range cur = {0, 0, 0};
    char* line = nullptr;
    size_t cap = 0;
    while (getline(&line, &cap, smaps) > 0) {
      unsigned long start, end;
      char perms[8];
      int path_at = 0;
      // A mapping's header: "start-end perms offset dev inode   path".
      if (sscanf(line, "%lx-%lx %7s %*s %*s %*s %n", &start, &end, perms, &path_at) == 3 && path_at > 0) {
        char* path = line + path_at;
        path[strcspn(path, "\n")] = 0;
        candidate = strcmp(path, exe) == 0 && perms[1] == '-' && perms[3] == 'p';
        cur = {start, end, 0};
        continue;
      }
      if (!candidate) continue;
      unsigned long kb;
      if (sscanf(line, "Rss: %lu kB", &kb) == 1) cur.rss = kb * 1024.0;
      // Anonymous comes after Rss in every mapping's block: the block's verdict.
      if (sscanf(line, "Anonymous: %lu kB", &kb) == 1) {
        if (kb == 0 && cur.rss > 0) ranges.push_back(cur);
        candidate = false;
      }
    }
    free(line);
    fclose(smaps);
    released = 0;
    for (const Range& r : ranges) {
      if (madvise(reinterpret_cast<void*>(r.start), r.end - r.start, MADV_DONTNEED) == 0) released += r.rss;
    }
  }
  napi_value out;
  CHECK(napi_create_double(env, released, &out));
  return out;
}

}  // namespace

NAPI_MODULE_INIT() {
  napi_property_descriptor props[] = {
      {"open", nullptr, Open, nullptr, nullptr, nullptr, napi_enumerable, nullptr},
      {"close", nullptr, Close, nullptr, nullptr, nullptr, napi_enumerable, nullptr},
      {"sendTo", nullptr, SendTo, nullptr, nullptr, nullptr, napi_enumerable, nullptr},
      {"info", nullptr, Info, nullptr, nullptr, nullptr, napi_enumerable, nullptr},
      {"idleThread", nullptr, IdleThisThread, nullptr, nullptr, nullptr, napi_enumerable, nullptr},
      {"trimHeap", nullptr, TrimHeap, nullptr, nullptr, nullptr, napi_enumerable, nullptr},
      {"tuneHeap", nullptr, TuneHeap, nullptr, nullptr, nullptr, napi_enumerable, nullptr},
      {"releaseExecutablePages", nullptr, ReleaseExecutablePages, nullptr, nullptr, nullptr, napi_enumerable,
       nullptr},
      {"releaseIsolateMemory", nullptr, ReleaseIsolateMemory, nullptr, nullptr, nullptr, napi_enumerable, nullptr},
  };
  napi_value batch;
  napi_create_int32(env, ADDR_BYTES, &batch);
  napi_set_named_property(env, exports, "ADDR_BYTES", batch);
  napi_define_properties(env, exports, sizeof props / sizeof props[0], props);
  return exports;
}
