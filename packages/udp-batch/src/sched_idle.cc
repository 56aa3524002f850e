// Thread scheduling for the query-log writer (docs/decisions.md "Query-log spool"), a module of its
// own so that the batched UDP addon (src/udp_batch.cc) does UDP I/O only (docs/decisions.md "The
// addon does UDP I/O only"). N-API only.
//
// waitForIdleCore(timeoutMs): blocks the calling thread until a core has had nothing else to run
// since the call, or `timeoutMs` passed. One gate thread per process, started at the first call and
// moved to SCHED_IDLE (sched(7); lowering a thread's own priority needs no privilege), answers each
// request when the kernel lets it run, which under SCHED_IDLE is when a core is otherwise free. The
// query-log writer asks before each transaction and then writes at normal priority: a thread at
// SCHED_IDLE holding a lock (SQLite's one write lock, which every API change takes) could be starved
// by other work for as long as that work lasts (docs/decisions.md "Query-log writes wait for an idle
// core"). Returns 1 (a core was free), 0 (timed out), or -errno when the gate thread cannot be
// started or was refused SCHED_IDLE.
//
// The module is linked with -z nodelete (binding.gyp): node dlcloses an addon when the last worker
// thread that loaded it ends, and the gate thread, which outlives the writer that started it, would
// then run unmapped code (a CI run lost a test worker to it).
#include <node_api.h>

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

namespace {

pthread_mutex_t gate_mutex = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t gate_asked;
pthread_cond_t gate_answered;
pthread_once_t gate_once = PTHREAD_ONCE_INIT;
/** Requests made, and the last request the gate thread answered (both under gate_mutex). */
uint64_t gate_requests = 0;
uint64_t gate_answers = 0;
/** 0 once the gate thread runs at SCHED_IDLE, else the errno that stopped it (under gate_mutex). */
int gate_error = 0;

void* GateThread(void*) {
  struct sched_param param;
  memset(&param, 0, sizeof param);
  int err = sched_setscheduler(0, SCHED_IDLE, &param) == 0 ? 0 : errno;
  pthread_mutex_lock(&gate_mutex);
  gate_error = err;
  for (;;) {
    while (gate_answers == gate_requests) pthread_cond_wait(&gate_asked, &gate_mutex);
    gate_answers = gate_requests;
    pthread_cond_broadcast(&gate_answered);
  }
  return nullptr;
}

void StartGate() {
  pthread_condattr_t attr;
  pthread_condattr_init(&attr);
  pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
  pthread_cond_init(&gate_answered, &attr);
  pthread_condattr_destroy(&attr);
  pthread_cond_init(&gate_asked, nullptr);
  pthread_attr_t thread_attr;
  pthread_attr_init(&thread_attr);
  pthread_attr_setdetachstate(&thread_attr, PTHREAD_CREATE_DETACHED);
  pthread_attr_setstacksize(&thread_attr, 64 * 1024);
  pthread_t thread;
  int err = pthread_create(&thread, &thread_attr, GateThread, nullptr);
  pthread_attr_destroy(&thread_attr);
  if (err != 0) gate_error = err;  // no other thread reads it before pthread_once returns
}

napi_value WaitForIdleCore(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value a[1];
  if (napi_get_cb_info(env, info, &argc, a, nullptr, nullptr) != napi_ok) return nullptr;
  double timeout = -1;
  // NaN, fractions and values beyond 2^31 - 1 ms are refused (`!(…)` catches NaN).
  if (argc < 1 || napi_get_value_double(env, a[0], &timeout) != napi_ok ||
      !(timeout >= 0 && timeout <= 2147483647.0 && timeout == static_cast<double>(static_cast<int32_t>(timeout)))) {
    napi_throw_type_error(env, nullptr, "waitForIdleCore: a timeout in whole ms (0 to 2^31 - 1) expected");
    return nullptr;
  }
  int32_t timeout_ms = static_cast<int32_t>(timeout);
  pthread_once(&gate_once, StartGate);
  struct timespec deadline;
  clock_gettime(CLOCK_MONOTONIC, &deadline);
  deadline.tv_sec += timeout_ms / 1000;
  deadline.tv_nsec += static_cast<long>(timeout_ms % 1000) * 1000000L;
  if (deadline.tv_nsec >= 1000000000L) {
    deadline.tv_sec += 1;
    deadline.tv_nsec -= 1000000000L;
  }
  pthread_mutex_lock(&gate_mutex);
  int result = 0;
  if (gate_error != 0) {
    result = -gate_error;  // no gate thread
  } else {
    uint64_t mine = ++gate_requests;
    pthread_cond_signal(&gate_asked);
    while (gate_answers < mine) {
      if (pthread_cond_timedwait(&gate_answered, &gate_mutex, &deadline) == ETIMEDOUT) break;
    }
    if (gate_answers >= mine) result = gate_error != 0 ? -gate_error : 1;
  }
  pthread_mutex_unlock(&gate_mutex);
  napi_value out;
  if (napi_create_int32(env, result, &out) != napi_ok) return nullptr;
  return out;
}

}  // namespace

NAPI_MODULE_INIT() {
  napi_property_descriptor props[] = {
      {"waitForIdleCore", nullptr, WaitForIdleCore, nullptr, nullptr, nullptr, napi_enumerable, nullptr},
  };
  if (napi_define_properties(env, exports, sizeof props / sizeof props[0], props) != napi_ok) return nullptr;
  return exports;
}
