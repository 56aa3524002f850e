{
  "targets": [
    {
      "target_name": "udp_batch",
      "sources": [
        "src/udp_batch.cc"
      ],
      "cflags_cc": [
        "-O2",
        "-Wall",
        "-Wextra",
        "-fno-exceptions"
      ],
      "defines": [
        "NAPI_VERSION=8"
      ]
    },
    {
      "target_name": "sched_idle",
      "sources": [
        "src/sched_idle.cc"
      ],
      "ldflags": [
        "-Wl,-z,nodelete"
      ],
      "cflags_cc": [
        "-O2",
        "-Wall",
        "-Wextra",
        "-fno-exceptions"
      ],
      "defines": [
        "NAPI_VERSION=8"
      ]
    }
  ]
}
