// One thread pool's worth of spinning: oneDNN (Debian's build, the device's
// GEMM and convolutions) runs on libgomp's OpenMP pool beside oneTBB's pool
// (everything else), both as wide as the machine. libgomp's default wait
// policy keeps idle workers spinning after each parallel region, on the cores
// oneTBB's workers need next (llama_3_2_1b inference: 28% of the process's
// CPU time spun in libgomp; with PASSIVE its device phase took 7.7 s instead
// of 14.6 s). libgomp reads OMP_WAIT_POLICY once, when it is loaded, before
// main(), so meshtest re-executes itself once with OMP_WAIT_POLICY=PASSIVE
// unless the caller chose a policy. `meshtest --version` shows the policy.
#pragma once

namespace meshtest::runner {

// Returns only if no re-exec was needed (or it failed: the run goes on as is).
void ensure_passive_openmp(char** argv);

// "OMP_WAIT_POLICY=PASSIVE" (or whatever the environment holds, "unset").
const char* openmp_wait_policy();

}  // namespace meshtest::runner
