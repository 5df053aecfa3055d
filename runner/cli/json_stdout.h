// `run --json -`: stdout carries the JSON lines and nothing else. Whatever
// else writes to file descriptor 1 (a case run in this process under
// --isolation none, a loader's or kernel's printf, a log line) goes to stderr
// with the console.
#pragma once

namespace meshtest::runner {

// Keeps the process's stdout as a private descriptor (returned, close-on-exec)
// for the JSON lines, points descriptor 1 at stderr and sends spdlog's default
// logger to stderr. Call once, before anything forks or logs; -1 when stdout
// cannot be duplicated (the JSON lines then share descriptor 1 as before).
int reserve_stdout_for_json();

}  // namespace meshtest::runner
