// Thread scheduling for the query-log writer (docs/decisions.md "Query-log spool"), a module of its
// own so that the batched UDP addon (src/udp_batch.cc) does UDP I/O only (docs/decisions.md "The
// addon does UDP I/O only"). N-API only.
//
// idleThread(tid): moves thread `tid` of this process (0: the calling thread) to SCHED_IDLE
// (sched(7)), which runs it only when no other runnable thread wants its core. Lowering a thread's
// own priority needs no privilege. Returns 0, or the errno of sched_setscheduler(2).
#include <node_api.h>

#include <errno.h>
#include <sched.h>
#include <string.h>

namespace {

napi_value IdleThread(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value a[1];
  if (napi_get_cb_info(env, info, &argc, a, nullptr, nullptr) != napi_ok) return nullptr;
  int32_t tid = 0;
  if (argc >= 1 && (napi_get_value_int32(env, a[0], &tid) != napi_ok || tid < 0)) {
    napi_throw_type_error(env, nullptr, "idleThread: a thread id (0 or more) expected");
    return nullptr;
  }
  int result = 0;
#ifdef SCHED_IDLE
  struct sched_param param;
  memset(&param, 0, sizeof param);
  if (sched_setscheduler(tid, SCHED_IDLE, &param) != 0) result = errno;
#else
  result = ENOSYS;
#endif
  napi_value out;
  if (napi_create_int32(env, result, &out) != napi_ok) return nullptr;
  return out;
}

}  // namespace

NAPI_MODULE_INIT() {
  napi_property_descriptor props[] = {
      {"idleThread", nullptr, IdleThread, nullptr, nullptr, nullptr, napi_enumerable, nullptr},
  };
  if (napi_define_properties(env, exports, sizeof props / sizeof props[0], props) != napi_ok) return nullptr;
  return exports;
}
