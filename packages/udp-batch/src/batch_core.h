// The parts of the batched UDP addon that read memory JavaScript wrote, without N-API or a socket:
// the address records (src/index.ts ADDR_BYTES) and the answer slots of a batch. Kept apart so that
// test/fuzz_batch.cc can feed them arbitrary bytes under the sanitizers (docs/decisions.md
// "The addon does UDP I/O only").
//
// Address record (ADDR_BYTES): [0] family 4 or 6, [1] 0, [2..3] port big-endian, [4..19] address
// (IPv4 in [4..7]; an IPv4-mapped IPv6 source is given as family 4, so JavaScript sees the
// canonical address).
#ifndef CORDON_UDP_BATCH_CORE_H_
#define CORDON_UDP_BATCH_CORE_H_

#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>

namespace udp_batch {

constexpr size_t ADDR_BYTES = 20;

// Fills one address record from a received source address of `len` bytes; a source the kernel did
// not give in full, or of another family, leaves family 0 (JavaScript then has no address to answer).
inline void WriteAddr(uint8_t* rec, const struct sockaddr_storage* ss, socklen_t len) {
  memset(rec, 0, ADDR_BYTES);
  if (ss->ss_family == AF_INET && len >= sizeof(struct sockaddr_in)) {
    const auto* a = reinterpret_cast<const struct sockaddr_in*>(ss);
    rec[0] = 4;
    memcpy(rec + 2, &a->sin_port, 2);
    memcpy(rec + 4, &a->sin_addr, 4);
  } else if (ss->ss_family == AF_INET6 && len >= sizeof(struct sockaddr_in6)) {
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

// The socket address of an address record of `rec_len` bytes for a socket of `family` (AF_INET or
// AF_INET6; IPv4 is sent as mapped on IPv6). 0 when the record is short or names no family the
// socket can reach.
inline socklen_t ReadAddr(int family, const uint8_t* rec, size_t rec_len, struct sockaddr_storage* ss) {
  memset(ss, 0, sizeof *ss);
  if (rec_len < ADDR_BYTES) return 0;
  if (family == AF_INET) {
    if (rec[0] != 4) return 0;
    auto* a = reinterpret_cast<struct sockaddr_in*>(ss);
    a->sin_family = AF_INET;
    memcpy(&a->sin_port, rec + 2, 2);
    memcpy(&a->sin_addr, rec + 4, 4);
    return sizeof *a;
  }
  if (family != AF_INET6) return 0;
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

// Prepares the sendmmsg(2) headers for the answers JavaScript wrote to a batch of `n` datagrams:
// slot i's answer is `answer_lens[i]` bytes at `out + i * out_slot`, sent to `names[i]` (its
// received source, `name_lens[i]` bytes). A length of 0 or less is no answer; one longer than the
// slot, or a slot that does not fit within `out_len`, or a source without its length is skipped
// (never read past the arena). Returns the number of headers filled in `smsgs` and `siov`, at most n.
inline int BuildSendBatch(const int32_t* answer_lens, int n, uint8_t* out, size_t out_len, size_t out_slot,
                          struct sockaddr_storage* names, const socklen_t* name_lens, struct mmsghdr* smsgs,
                          struct iovec* siov) {
  int k = 0;
  if (n <= 0 || out_slot == 0) return 0;
  for (int i = 0; i < n; i++) {
    int32_t len = answer_lens[i];
    if (len <= 0 || static_cast<size_t>(len) > out_slot) continue;
    size_t at = static_cast<size_t>(i) * out_slot;
    if (at > out_len || out_len - at < static_cast<size_t>(len)) continue;
    if (name_lens[i] == 0 || name_lens[i] > sizeof(struct sockaddr_storage)) continue;
    siov[k].iov_base = out + at;
    siov[k].iov_len = static_cast<size_t>(len);
    struct msghdr* h = &smsgs[k].msg_hdr;
    memset(h, 0, sizeof *h);
    h->msg_name = &names[i];
    h->msg_namelen = name_lens[i];
    h->msg_iov = &siov[k];
    h->msg_iovlen = 1;
    smsgs[k].msg_len = 0;
    k++;
  }
  return k;
}

}  // namespace udp_batch

#endif  // CORDON_UDP_BATCH_CORE_H_
