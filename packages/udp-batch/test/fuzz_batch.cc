// Feeds arbitrary bytes to what the addon reads from memory JavaScript wrote (src/batch_core.h):
// the answer lengths of a batch and the address records. Built by test/sanitize.sh with libFuzzer
// (clang -fsanitize=fuzzer,address,undefined), or with -DUDP_BATCH_STANDALONE as a deterministic
// random-input run when libFuzzer is not there. Every buffer is allocated at its exact size, so a
// read or write one byte past an arena is an AddressSanitizer report; a header that points outside
// the answer arena or past its slot is a trap.
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../src/batch_core.h"

namespace {

struct Reader {
  const uint8_t* p;
  size_t n;
  uint8_t u8() {
    if (n == 0) return 0;
    n--;
    return *p++;
  }
  uint32_t u32() { return u8() | (u8() << 8) | (u8() << 16) | (static_cast<uint32_t>(u8()) << 24); }
};

void Check(bool ok) {
  if (!ok) __builtin_trap();
}

// Where the bytes of each answer are summed, so that the reads are not optimised away.
volatile unsigned sink;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Reader r{data, size};
  const int n = 1 + r.u8() % 64;
  const size_t out_slot = 1 + (r.u8() | (r.u8() << 8)) % 4096;
  // An arena up to one slot shorter or longer than the batch needs: the builder must stay inside it.
  const size_t full = static_cast<size_t>(n) * out_slot;
  const size_t cut = r.u8() % (out_slot + 1);
  const size_t out_len = (r.u8() & 1) ? full - cut : full + cut;
  uint8_t* out = static_cast<uint8_t*>(malloc(out_len ? out_len : 1));
  int32_t* answer_lens = static_cast<int32_t*>(malloc(sizeof(int32_t) * n));
  auto* names = static_cast<struct sockaddr_storage*>(calloc(n, sizeof(struct sockaddr_storage)));
  auto* name_lens = static_cast<socklen_t*>(malloc(sizeof(socklen_t) * n));
  auto* smsgs = static_cast<struct mmsghdr*>(malloc(sizeof(struct mmsghdr) * n));
  auto* siov = static_cast<struct iovec*>(malloc(sizeof(struct iovec) * n));
  uint8_t* rec = static_cast<uint8_t*>(malloc(udp_batch::ADDR_BYTES));
  Check(out && answer_lens && names && name_lens && smsgs && siov && rec);
  memset(out, 0xab, out_len);
  for (int i = 0; i < n; i++) {
    answer_lens[i] = static_cast<int32_t>(r.u32());
    // A received source as the kernel might give it, then its record as JavaScript reads it.
    uint8_t* raw = reinterpret_cast<uint8_t*>(&names[i]);
    for (size_t j = 0; j < 28; j++) raw[j] = r.u8();
    names[i].ss_family = (r.u8() & 1) ? AF_INET6 : AF_INET;
    name_lens[i] = r.u8() % (sizeof(struct sockaddr_storage) + 8);
    udp_batch::WriteAddr(rec, &names[i], name_lens[i]);
    Check(rec[0] == 0 || rec[0] == 4 || rec[0] == 6);
  }
  int k = udp_batch::BuildSendBatch(answer_lens, n, out, out_len, out_slot, names, name_lens, smsgs, siov);
  Check(k >= 0 && k <= n);
  unsigned sum = 0;
  for (int j = 0; j < k; j++) {
    const uint8_t* base = static_cast<const uint8_t*>(siov[j].iov_base);
    Check(base >= out && siov[j].iov_len > 0 && siov[j].iov_len <= out_slot);
    size_t at = static_cast<size_t>(base - out);
    Check(at % out_slot == 0 && at + siov[j].iov_len <= out_len);
    Check(smsgs[j].msg_hdr.msg_iov == &siov[j] && smsgs[j].msg_hdr.msg_iovlen == 1);
    Check(smsgs[j].msg_hdr.msg_namelen > 0 && smsgs[j].msg_hdr.msg_namelen <= sizeof(struct sockaddr_storage));
    for (size_t b = 0; b < siov[j].iov_len; b++) sum += base[b];  // every byte sendmmsg would read
  }
  // Records of any length and content, read for either family: a usable address or 0, never more.
  for (int i = 0; i < 4; i++) {
    size_t len = r.u8() % (udp_batch::ADDR_BYTES + 1);
    uint8_t* record = static_cast<uint8_t*>(malloc(len ? len : 1));
    Check(record != nullptr);
    for (size_t j = 0; j < len; j++) record[j] = r.u8();
    const int families[] = {AF_INET, AF_INET6, AF_UNIX};
    for (int family : families) {
      struct sockaddr_storage ss;
      socklen_t sl = udp_batch::ReadAddr(family, record, len, &ss);
      Check(sl == 0 || sl == sizeof(struct sockaddr_in) || sl == sizeof(struct sockaddr_in6));
      if (sl == 0) continue;
      Check(len == udp_batch::ADDR_BYTES && (record[0] == 4 || record[0] == 6));
      // What the socket would send to comes back as the same record (IPv4 mapped on IPv6 as 4).
      udp_batch::WriteAddr(rec, &ss, sl);
      Check(memcmp(rec + 2, record + 2, 2) == 0);
      Check(record[0] == 4 ? memcmp(rec + 4, record + 4, 4) == 0 : rec[0] == 4 || memcmp(rec + 4, record + 4, 16) == 0);
    }
    free(record);
  }
  free(out);
  free(answer_lens);
  free(names);
  free(name_lens);
  free(smsgs);
  free(siov);
  free(rec);
  sink = sum;
  return 0;
}

#ifdef UDP_BATCH_STANDALONE
// Without libFuzzer: seconds of pseudo-random inputs (xorshift64, a fixed seed: the same run each time).
int main(int argc, char** argv) {
  double seconds = argc > 1 ? atof(argv[1]) : 5;
  uint64_t x = 0x9e3779b97f4a7c15ull;
  uint8_t buf[4096];
  unsigned long runs = 0;
  time_t end = time(nullptr) + static_cast<time_t>(seconds);
  while (time(nullptr) < end) {
    for (int i = 0; i < 256; i++, runs++) {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      size_t len = x % sizeof buf;
      for (size_t j = 0; j < len; j++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        buf[j] = static_cast<uint8_t>(x);
      }
      LLVMFuzzerTestOneInput(buf, len);
    }
  }
  printf("fuzz_batch: %lu inputs, no fault\n", runs);
  return 0;
}
#endif
