// Batched UDP for the resolver (docs/decisions.md "Batched UDP"): one non-blocking socket watched
// by a uv_poll handle on the calling thread's loop; when readable, recvmmsg(2) drains up to a batch
// of datagrams into the caller's arena, JavaScript is called once for the whole batch and writes
// its synchronous answers into the output arena, and sendmmsg(2) sends them in one system call.
// Linux only (recvmmsg / sendmmsg); elsewhere the build fails and the resolver uses node:dgram.
// UDP I/O only, through N-API alone (docs/decisions.md "The addon does UDP I/O only").
//
// Memory JavaScript handed over is re-checked before every use: the arenas are typed arrays whose
// ArrayBuffer JavaScript may detach (transfer) or shrink at any time, so the socket is shut down and
// an uncaught ERR_UDP_BATCH_ARENA error raised rather than a byte written to memory that moved.
// Every N-API, libuv and allocation result is checked: a failure throws (or returns an errno)
// and leaves nothing half-open.
#include <node_api.h>
#include <uv.h>

#include <arpa/inet.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "batch_core.h"

namespace {

using udp_batch::ADDR_BYTES;

// Batches drained per readable event before yielding to the loop (level-triggered poll fires again).
constexpr int MAX_BATCHES_PER_EVENT = 4;
// Datagrams per batch at most (the resolver uses 64).
constexpr int MAX_BATCH = 1024;
// The largest UDP payload (RFC 768 length field less the header); sendTo refuses more with EMSGSIZE.
constexpr size_t MAX_DATAGRAM = 65535 - 8;

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
  // Where the arenas were at open and the bytes they must keep; checked before each use.
  uint8_t* in;
  size_t in_len;
  uint8_t* out;
  size_t out_len;
  int32_t* lens;  // [0, batch): received lengths (-1: truncated); [batch, 2 batch): answer lengths
  uint8_t* addrs;
  size_t addrs_len;
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
  socklen_t* rname_lens;
  struct mmsghdr* smsgs;
  struct iovec* siov;
  double batches, received, sent, send_errors, truncated, recv_errors;
};

#define CHECK(call)                        \
  do {                                     \
    if ((call) != napi_ok) return nullptr; \
  } while (0)

const char* ErrnoCode(int err) {
  switch (err) {
    case EADDRINUSE: return "EADDRINUSE";
    case EADDRNOTAVAIL: return "EADDRNOTAVAIL";
    case EACCES: return "EACCES";
    case EAFNOSUPPORT: return "EAFNOSUPPORT";
    case EINVAL: return "EINVAL";
    case ENOMEM: return "ENOMEM";
    case EMFILE: return "EMFILE";
    case ENFILE: return "ENFILE";
    default: return "ERR_UDP_BATCH";
  }
}

// An Error with `code`; null when not even that could be made (the caller then has nothing to throw).
napi_value MakeError(napi_env env, const char* code, const char* msg) {
  napi_value c, m, e;
  if (napi_create_string_utf8(env, code, NAPI_AUTO_LENGTH, &c) != napi_ok ||
      napi_create_string_utf8(env, msg, NAPI_AUTO_LENGTH, &m) != napi_ok || napi_create_error(env, c, m, &e) != napi_ok)
    return nullptr;
  return e;
}

napi_value ThrowErrno(napi_env env, const char* what, int err) {
  char msg[200];
  snprintf(msg, sizeof msg, "%s: %s", what, strerror(err));
  napi_value e = MakeError(env, ErrnoCode(err), msg);
  if (e != nullptr) napi_throw(env, e);
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
  free(s->rname_lens);
  free(s->smsgs);
  free(s->siov);
  free(s);
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

// Drops the JavaScript references and the async context (when the environment still runs).
// Failures here cannot be answered: the environment is going away or the reference is gone already.
void DropJs(Sock* s) {
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

// Stops watching and closes the descriptor; the Sock itself is freed once libuv closed the handle.
void Shutdown(Sock* s, bool env_alive) {
  if (s->closed) return;
  s->closed = true;
  if (env_alive) DropJs(s);
  // uv_poll_stop cannot fail on an initialised handle; close(2) is not retried (Linux frees the
  // descriptor even when it reports EINTR).
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

// A typed array of `type` that is not detached: its data and length (elements). False otherwise.
bool TypedArray(napi_env env, napi_value v, napi_typedarray_type type, void** data, size_t* length) {
  bool is = false;
  if (napi_is_typedarray(env, v, &is) != napi_ok || !is) return false;
  napi_typedarray_type t;
  napi_value ab;
  size_t off;
  if (napi_get_typedarray_info(env, v, &t, length, data, &ab, &off) != napi_ok || t != type) return false;
  bool detached = true;
  if (napi_is_detached_arraybuffer(env, ab, &detached) != napi_ok || detached) return false;
  return *data != nullptr || *length == 0;
}

bool GetBytes(napi_env env, napi_value v, uint8_t** data, size_t* len) {
  void* d = nullptr;
  if (!TypedArray(env, v, napi_uint8_array, &d, len)) return false;
  *data = static_cast<uint8_t*>(d);
  return true;
}

// Whether the referenced typed array still has its memory where it was, at least `need` elements.
bool StillAt(napi_env env, napi_ref ref, napi_typedarray_type type, const void* where, size_t need) {
  napi_value v;
  void* data = nullptr;
  size_t length = 0;
  if (ref == nullptr || napi_get_reference_value(env, ref, &v) != napi_ok || v == nullptr) return false;
  return TypedArray(env, v, type, &data, &length) && data == where && length >= need;
}

// The arenas JavaScript handed to open() are still attached, where they were, and long enough.
bool ArenasIntact(Sock* s) {
  const size_t b = static_cast<size_t>(s->batch);
  return StillAt(s->env, s->in_ref, napi_uint8_array, s->in, b * s->in_slot) &&
         StillAt(s->env, s->out_ref, napi_uint8_array, s->out, b * s->out_slot) &&
         StillAt(s->env, s->lens_ref, napi_int32_array, s->lens, 2 * b) &&
         StillAt(s->env, s->addrs_ref, napi_uint8_array, s->addrs, b * ADDR_BYTES);
}

// Ends the socket and reports why as an uncaught exception (there is no JavaScript caller on a
// poll event): the process's 'uncaughtException' handling decides, as for a throwing callback.
void Fail(Sock* s, const char* code, const char* msg) {
  napi_env env = s->env;
  Shutdown(s, true);
  napi_value e = MakeError(env, code, msg);
  if (e != nullptr) napi_fatal_exception(env, e);
}

// Sends the answers JavaScript wrote for slots [0, n): one sendmmsg per run, skipping a failed one.
void SendBatch(Sock* s, int n) {
  int k = udp_batch::BuildSendBatch(s->lens + s->batch, n, s->out, s->out_len, s->out_slot, s->rnames, s->rname_lens,
                                    s->smsgs, s->siov);
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
    if (r == 0) {  // not documented for a non-empty vector; never spin on it
      s->send_errors += k - done;
      break;
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
  if (napi_open_handle_scope(env, &scope) != napi_ok) {
    // The environment cannot run JavaScript any more (a thread ending): stop receiving.
    s->recv_errors++;
    Shutdown(s, true);
    return;
  }
  if (status < 0) {
    // The descriptor itself failed (libuv reports EBADF and the like): stop rather than spin.
    s->recv_errors++;
    char msg[120];
    snprintf(msg, sizeof msg, "udp-batch: the socket failed (%s); it is closed", uv_strerror(status));
    Fail(s, "ERR_UDP_BATCH_SOCKET", msg);
    napi_close_handle_scope(env, scope);
    return;
  }
  napi_value cb, resource;
  if ((events & UV_READABLE) == 0) {
    napi_close_handle_scope(env, scope);
    return;
  }
  if (napi_get_reference_value(env, s->cb_ref, &cb) != napi_ok || cb == nullptr ||
      napi_get_reference_value(env, s->resource_ref, &resource) != napi_ok || resource == nullptr) {
    Fail(s, "ERR_UDP_BATCH", "udp-batch: the batch callback is gone; the socket is closed");
    napi_close_handle_scope(env, scope);
    return;
  }
  for (int round = 0; round < MAX_BATCHES_PER_EVENT && !s->closed; round++) {
    if (!ArenasIntact(s)) {
      Fail(s, "ERR_UDP_BATCH_ARENA", "udp-batch: an arena was detached or shrunk; the socket is closed");
      break;
    }
    for (int i = 0; i < s->batch; i++) {
      s->rmsgs[i].msg_hdr.msg_namelen = sizeof(struct sockaddr_storage);
      s->rmsgs[i].msg_hdr.msg_flags = 0;
      s->rmsgs[i].msg_len = 0;
    }
    int n = recvmmsg(s->fd, s->rmsgs, static_cast<unsigned>(s->batch), MSG_DONTWAIT, nullptr);
    if (n < 0) {
      if (errno == EINTR) continue;
      // Transient (ENOMEM, a queued ICMP error): counted; the level-triggered poll calls again.
      if (errno != EAGAIN && errno != EWOULDBLOCK) s->recv_errors++;
      break;
    }
    if (n == 0) break;
    s->batches++;
    s->received += n;
    for (int i = 0; i < n; i++) {
      const struct msghdr* h = &s->rmsgs[i].msg_hdr;
      bool trunc = (h->msg_flags & MSG_TRUNC) != 0 || s->rmsgs[i].msg_len > s->in_slot;
      if (trunc) s->truncated++;
      s->lens[i] = trunc ? -1 : static_cast<int32_t>(s->rmsgs[i].msg_len);
      s->lens[s->batch + i] = 0;
      s->rname_lens[i] = h->msg_namelen <= sizeof(struct sockaddr_storage) ? h->msg_namelen : 0;
      udp_batch::WriteAddr(s->addrs + static_cast<size_t>(i) * ADDR_BYTES, &s->rnames[i], s->rname_lens[i]);
    }
    napi_value argv[1], result;
    if (napi_create_int32(env, n, &argv[0]) != napi_ok) {
      Fail(s, "ERR_UDP_BATCH", "udp-batch: cannot pass the batch to JavaScript; the socket is closed");
      break;
    }
    s->in_callback = true;
    napi_status st = napi_make_callback(env, s->actx, resource, cb, 1, argv, &result);
    s->in_callback = false;
    if (st == napi_pending_exception) {
      napi_value exc;
      if (napi_get_and_clear_last_exception(env, &exc) == napi_ok) napi_fatal_exception(env, exc);
    } else if (st != napi_ok) {
      // JavaScript cannot be called (the environment is stopping): nothing more to answer.
      s->recv_errors++;
      Shutdown(s, true);
    }
    if (s->closed) {
      if (s->actx != nullptr) napi_async_destroy(env, s->actx);
      s->actx = nullptr;
      break;
    }
    // The callback may have detached an arena (transferred its buffer): nothing is read from it then.
    if (!ArenasIntact(s)) {
      Fail(s, "ERR_UDP_BATCH_ARENA", "udp-batch: an arena was detached or shrunk; the socket is closed");
      break;
    }
    SendBatch(s, n);
    if (n < s->batch) break;
  }
  napi_close_handle_scope(env, scope);
}

Sock* Unwrap(napi_env env, napi_value v) {
  void* p = nullptr;
  napi_valuetype t;
  if (napi_typeof(env, v, &t) != napi_ok || t != napi_external) return nullptr;
  if (napi_get_value_external(env, v, &p) != napi_ok) return nullptr;
  return static_cast<Sock*>(p);
}

// Undoes an open() that failed before the poll handle existed: references, context, memory, socket.
napi_value AbandonOpen(Sock* s, napi_value (*thrower)(napi_env, const char*, int), const char* what, int err) {
  napi_env env = s->env;
  DropJs(s);
  close(s->fd);
  FreeSock(s);
  return thrower(env, what, err);
}

// open(host, port, rcvbuf, reusePort, inArena, outArena, inSlot, outSlot, lens, addrs, onBatch)
napi_value Open(napi_env env, napi_callback_info info) {
  size_t argc = 11;
  napi_value a[11];
  CHECK(napi_get_cb_info(env, info, &argc, a, nullptr, nullptr));
  if (argc < 11) return ThrowType(env, "udp-batch open: 11 arguments expected");
  char host[64];
  size_t hostLen = 0;
  if (napi_get_value_string_utf8(env, a[0], host, sizeof host, &hostLen) != napi_ok)
    return ThrowType(env, "udp-batch open: host must be a string");
  if (hostLen >= sizeof host - 1) return ThrowType(env, "udp-batch open: host is longer than an IP address");
  int32_t port, rcvbuf, inSlot, outSlot;
  bool reuse;
  if (napi_get_value_int32(env, a[1], &port) != napi_ok || port < 0 || port > 65535)
    return ThrowType(env, "udp-batch open: port must be 0..65535");
  if (napi_get_value_int32(env, a[2], &rcvbuf) != napi_ok || rcvbuf < 0)
    return ThrowType(env, "udp-batch open: rcvbuf must be a non-negative integer");
  if (napi_get_value_bool(env, a[3], &reuse) != napi_ok)
    return ThrowType(env, "udp-batch open: reusePort must be a boolean");
  uint8_t *in, *out, *addrs;
  size_t inLen, outLen, addrsLen;
  if (!GetBytes(env, a[4], &in, &inLen) || !GetBytes(env, a[5], &out, &outLen) ||
      !GetBytes(env, a[9], &addrs, &addrsLen))
    return ThrowType(env, "udp-batch open: arenas and addresses must be Uint8Arrays that are not detached");
  if (napi_get_value_int32(env, a[6], &inSlot) != napi_ok || inSlot <= 0 || inSlot > 65536 ||
      napi_get_value_int32(env, a[7], &outSlot) != napi_ok || outSlot <= 0 || outSlot > 65536)
    return ThrowType(env, "udp-batch open: slot sizes must be 1..65536 bytes");
  void* lensData = nullptr;
  size_t lensCount = 0;
  if (!TypedArray(env, a[8], napi_int32_array, &lensData, &lensCount))
    return ThrowType(env, "udp-batch open: lens must be an Int32Array that is not detached");
  if (lensCount < 2 || lensCount > 2 * MAX_BATCH)
    return ThrowType(env, "udp-batch open: lens must hold 2 to 2048 lengths (2 per datagram of a batch)");
  int batch = static_cast<int>(lensCount / 2);
  const size_t b = static_cast<size_t>(batch);
  if (inLen < b * static_cast<size_t>(inSlot) || outLen < b * static_cast<size_t>(outSlot) || addrsLen < b * ADDR_BYTES)
    return ThrowType(env, "udp-batch open: arenas smaller than the batch");
  napi_valuetype cbt;
  if (napi_typeof(env, a[10], &cbt) != napi_ok || cbt != napi_function)
    return ThrowType(env, "udp-batch open: onBatch must be a function");

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
  // Dual stack, as node:dgram.
  if (family == AF_INET6 && setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero) != 0) {
    int e = errno;
    close(fd);
    return ThrowErrno(env, "udp-batch IPV6_V6ONLY", e);
  }
  if (reuse && setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one) != 0) {
    int e = errno;
    close(fd);
    return ThrowErrno(env, "udp-batch SO_REUSEPORT", e);
  }
  // A refused size keeps the system default, as the dgram path does (the JS side logs the
  // effective size from info()), so its result is deliberately not an error.
  if (rcvbuf > 0) (void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
  if (bind(fd, reinterpret_cast<struct sockaddr*>(&ss), sslen) != 0) {
    int e = errno;
    close(fd);
    char what[120];
    snprintf(what, sizeof what, "bind %s:%d", host, port);
    return ThrowErrno(env, what, e);
  }

  Sock* s = static_cast<Sock*>(calloc(1, sizeof(Sock)));
  if (s == nullptr) {
    close(fd);
    return ThrowErrno(env, "udp-batch open", ENOMEM);
  }
  s->env = env;
  s->fd = fd;
  s->family = family;
  s->batch = batch;
  s->in_slot = static_cast<size_t>(inSlot);
  s->out_slot = static_cast<size_t>(outSlot);
  s->in = in;
  s->in_len = inLen;
  s->out = out;
  s->out_len = outLen;
  s->lens = static_cast<int32_t*>(lensData);
  s->addrs = addrs;
  s->addrs_len = addrsLen;
  s->rmsgs = static_cast<struct mmsghdr*>(calloc(b, sizeof(struct mmsghdr)));
  s->riov = static_cast<struct iovec*>(calloc(b, sizeof(struct iovec)));
  s->rnames = static_cast<struct sockaddr_storage*>(calloc(b, sizeof(struct sockaddr_storage)));
  s->rname_lens = static_cast<socklen_t*>(calloc(b, sizeof(socklen_t)));
  s->smsgs = static_cast<struct mmsghdr*>(calloc(b, sizeof(struct mmsghdr)));
  s->siov = static_cast<struct iovec*>(calloc(b, sizeof(struct iovec)));
  if (s->rmsgs == nullptr || s->riov == nullptr || s->rnames == nullptr || s->rname_lens == nullptr ||
      s->smsgs == nullptr || s->siov == nullptr)
    return AbandonOpen(s, ThrowErrno, "udp-batch open", ENOMEM);
  for (size_t i = 0; i < b; i++) {
    s->riov[i].iov_base = in + i * s->in_slot;
    s->riov[i].iov_len = s->in_slot;
    s->rmsgs[i].msg_hdr.msg_name = &s->rnames[i];
    s->rmsgs[i].msg_hdr.msg_iov = &s->riov[i];
    s->rmsgs[i].msg_hdr.msg_iovlen = 1;
  }
  napi_value resource, name;
  uv_loop_t* loop = nullptr;
  if (napi_create_reference(env, a[4], 1, &s->in_ref) != napi_ok ||
      napi_create_reference(env, a[5], 1, &s->out_ref) != napi_ok ||
      napi_create_reference(env, a[8], 1, &s->lens_ref) != napi_ok ||
      napi_create_reference(env, a[9], 1, &s->addrs_ref) != napi_ok ||
      napi_create_reference(env, a[10], 1, &s->cb_ref) != napi_ok || napi_create_object(env, &resource) != napi_ok ||
      napi_create_reference(env, resource, 1, &s->resource_ref) != napi_ok ||
      napi_create_string_utf8(env, "UDPBATCH", NAPI_AUTO_LENGTH, &name) != napi_ok ||
      napi_async_init(env, resource, name, &s->actx) != napi_ok || napi_get_uv_event_loop(env, &loop) != napi_ok ||
      loop == nullptr)
    return AbandonOpen(s, ThrowErrno, "udp-batch open: N-API refused a call", EINVAL);

  uv_poll_t* poll = static_cast<uv_poll_t*>(calloc(1, sizeof(uv_poll_t)));
  if (poll == nullptr) return AbandonOpen(s, ThrowErrno, "udp-batch open", ENOMEM);
  int r = uv_poll_init(loop, poll, fd);
  if (r != 0) {
    free(poll);
    char what[120];
    snprintf(what, sizeof what, "udp-batch uv_poll_init: %s", uv_strerror(r));
    return AbandonOpen(s, ThrowErrno, what, EINVAL);
  }
  // From here the poll handle owns the Sock until libuv closed it (Shutdown → OnPollClosed).
  s->poll = poll;
  poll->data = s;
  s->owners = 1;
  r = uv_poll_start(poll, UV_READABLE, OnReadable);
  if (r != 0) {
    Shutdown(s, true);
    char what[120];
    snprintf(what, sizeof what, "udp-batch uv_poll_start: %s", uv_strerror(r));
    return ThrowErrno(env, what, EINVAL);
  }
  if (napi_add_async_cleanup_hook(env, EnvCleanup, s, &s->cleanup) != napi_ok) {
    s->cleanup = nullptr;
    Shutdown(s, true);
    return ThrowErrno(env, "udp-batch open: cannot watch the environment's end", EINVAL);
  }
  napi_value handle;
  if (napi_create_external(env, s, FinalizeHandle, nullptr, &handle) != napi_ok) {
    Shutdown(s, true);
    return ThrowErrno(env, "udp-batch open: cannot make the handle", ENOMEM);
  }
  s->owners = 2;
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
// Returns 0, or the errno of a failed send (the datagram is dropped, as dgram would): EBADF once
// closed, EAFNOSUPPORT for a record the socket cannot reach, EMSGSIZE for more than a datagram holds.
napi_value SendTo(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value a[3];
  CHECK(napi_get_cb_info(env, info, &argc, a, nullptr, nullptr));
  Sock* s = argc == 3 ? Unwrap(env, a[0]) : nullptr;
  uint8_t *data, *rec;
  size_t len, recLen;
  if (s == nullptr || !GetBytes(env, a[1], &data, &len) || !GetBytes(env, a[2], &rec, &recLen) || recLen < ADDR_BYTES)
    return ThrowType(env, "udp-batch sendTo: handle, bytes and a 20-byte address record (not detached) expected");
  int result = EBADF;
  if (len > MAX_DATAGRAM) {
    result = EMSGSIZE;
  } else if (!s->closed) {
    struct sockaddr_storage ss;
    socklen_t sl = udp_batch::ReadAddr(s->family, rec, recLen, &ss);
    if (sl == 0) {
      result = EAFNOSUPPORT;
    } else {
      ssize_t r;
      do r = sendto(s->fd, len == 0 ? "" : reinterpret_cast<const char*>(data), len, MSG_DONTWAIT,
                    reinterpret_cast<struct sockaddr*>(&ss), sl);
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

bool Set(napi_env env, napi_value obj, const char* key, double v) {
  napi_value n;
  return napi_create_double(env, v, &n) == napi_ok && napi_set_named_property(env, obj, key, n) == napi_ok;
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
    if (getsockname(s->fd, reinterpret_cast<struct sockaddr*>(&ss), &sl) != 0) return ThrowErrno(env, "udp-batch getsockname", errno);
    port = ntohs(ss.ss_family == AF_INET6 ? reinterpret_cast<struct sockaddr_in6*>(&ss)->sin6_port
                                          : reinterpret_cast<struct sockaddr_in*>(&ss)->sin_port);
    socklen_t rl = sizeof rcv;
    if (getsockopt(s->fd, SOL_SOCKET, SO_RCVBUF, &rcv, &rl) != 0) return ThrowErrno(env, "udp-batch SO_RCVBUF", errno);
  }
  if (!Set(env, obj, "port", port) || !Set(env, obj, "family", s->family == AF_INET6 ? 6 : 4) ||
      !Set(env, obj, "recvBufferBytes", rcv) || !Set(env, obj, "batches", s->batches) ||
      !Set(env, obj, "received", s->received) || !Set(env, obj, "sent", s->sent) ||
      !Set(env, obj, "sendErrors", s->send_errors) || !Set(env, obj, "truncated", s->truncated) ||
      !Set(env, obj, "recvErrors", s->recv_errors))
    return nullptr;
  return obj;
}

}  // namespace

NAPI_MODULE_INIT() {
  napi_property_descriptor props[] = {
      {"open", nullptr, Open, nullptr, nullptr, nullptr, napi_enumerable, nullptr},
      {"close", nullptr, Close, nullptr, nullptr, nullptr, napi_enumerable, nullptr},
      {"sendTo", nullptr, SendTo, nullptr, nullptr, nullptr, napi_enumerable, nullptr},
      {"info", nullptr, Info, nullptr, nullptr, nullptr, napi_enumerable, nullptr},
  };
  napi_value addrBytes;
  if (napi_create_uint32(env, static_cast<uint32_t>(ADDR_BYTES), &addrBytes) != napi_ok ||
      napi_set_named_property(env, exports, "ADDR_BYTES", addrBytes) != napi_ok ||
      napi_define_properties(env, exports, sizeof props / sizeof props[0], props) != napi_ok)
    return nullptr;
  return exports;
}
