// `meshtest mutate`: one child `meshtest run` per mutant (plus the baseline),
// results read back from the store, the kill matrix and the score per class
// printed and written.
#include "runner/cli/mutate_command.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <memory>
#include <optional>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "core/atomic_file.h"
#include "core/error.h"
#include "core/mutation.h"
#include "reports/kill_matrix.h"
#include "reports/result_store.h"

extern char** environ;

namespace meshtest::runner {

namespace {

namespace fs = std::filesystem;

// This process's environment with MESHTEST_MUTANT set to `mutant` ("": unset).
std::vector<std::string> child_environment(const std::string& mutant) {
  const std::string prefix = std::string(kMutantEnv) + "=";
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    if (std::string_view(*e).rfind(prefix, 0) != 0) env.emplace_back(*e);
  }
  if (!mutant.empty()) env.push_back(prefix + mutant);
  return env;
}

std::vector<char*> c_strings(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (std::string& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// Runs `meshtest run ...` with `mutant` active, its console output into
// `log`; returns its exit status (128 + signal when killed).
int run_child(const MutateOptions& o, const std::string& mutant, const std::string& run_id, const fs::path& log) {
  std::vector<std::string> args{fs::read_symlink("/proc/self/exe").string(), "run"};
  args.insert(args.end(), o.run_args.begin(), o.run_args.end());
  args.insert(args.end(), {"--db", o.db, "--run-id", run_id});
  std::vector<std::string> env = child_environment(mutant);
  std::vector<char*> argv = c_strings(args), envp = c_strings(env);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) throw Error("mutate: cannot start " + args[0] + ": " + std::strerror(spawned));
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) throw Error(std::string("mutate: waitpid: ") + std::strerror(errno));
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The last "== ... ==" summary line of a run's console output.
std::string summary_line(const std::string& console) {
  std::string last, line;
  std::istringstream lines(console);
  while (std::getline(lines, line)) {
    if (line.rfind("== ", 0) == 0) last = line;
  }
  return last.empty() ? "(no summary)" : last;
}

std::string run_id_base() {
  std::string stamp;
  for (char c : reports::utc_now_iso8601()) {
    if (std::isdigit(static_cast<unsigned char>(c)) || c == 'T') stamp += c;
  }
  return "mutate-" + stamp.substr(0, 15) + "-" + std::to_string(getpid());
}

std::vector<std::string> chosen_mutants(const MutateOptions& o) {
  if (!o.mutants.empty()) {
    for (const std::string& name : o.mutants) {
      if (find_mutant(name) == nullptr) {
        throw Error("--mutants: '" + name + "' names no catalogued mutant; known: " + known_mutant_names());
      }
    }
    return o.mutants;
  }
  std::vector<std::string> all;
  for (const MutantInfo& info : mutant_catalogue()) all.emplace_back(info.name);
  return all;
}

}  // namespace

int cmd_mutate(const MutateOptions& o) {
  if (o.db.empty()) {
    std::cerr << "meshtest mutate: needs a results store (--db): the matrix is read from it\n";
    return 2;
  }
  std::vector<std::string> mutants;
  try {
    mutants = chosen_mutants(o);
  } catch (const Error& e) {
    std::cerr << "meshtest mutate: " << e.what() << "\n";
    return 2;
  }
  const std::string base = run_id_base();
  const fs::path logs = fs::temp_directory_path() / base;
  fs::create_directories(logs);
  auto run_once = [&](const std::string& mutant, const std::string& run_id) -> std::optional<int> {
    const fs::path log = logs / (run_id + ".log");
    const int status = run_child(o, mutant, run_id, log);
    const std::string console = read_file(log);
    if (status != 0 && status != 1) {
      std::cerr << console << "meshtest mutate: run " << run_id << " exited with status " << status << "\n";
      return status == 2 || status == 5 ? status : 1;
    }
    std::cout << (mutant.empty() ? "baseline" : mutant) << ": run " << run_id << " " << summary_line(console)
              << std::endl;
    return std::nullopt;
  };

  const std::string baseline_id = base + "-baseline";
  if (auto stop = run_once("", baseline_id)) return *stop;
  std::vector<reports::MutantRun> runs;
  for (const std::string& mutant : mutants) {
    const std::string run_id = base + "-" + mutant;
    if (auto stop = run_once(mutant, run_id)) return *stop;
    runs.push_back({mutant, run_id, {}, std::string(find_mutant(mutant)->mutant_class)});
  }
  const std::unique_ptr<reports::ResultStore> store = reports::open_store(o.db);
  for (reports::MutantRun& run : runs) run.results = store->run_results(run.run_id);
  const reports::KillMatrix matrix = reports::build_kill_matrix(baseline_id, store->run_results(baseline_id), runs);
  std::cout << "\n" << reports::format_kill_matrix(matrix);
  if (!o.kill_matrix_json.empty()) {
    try {
      write_file_atomically(o.kill_matrix_json, reports::kill_matrix_json(matrix).dump(2) + "\n", "the kill matrix");
    } catch (const Error& e) {
      std::cerr << "meshtest mutate: " << e.what() << "\n";
      return 1;
    }
    std::cout << "kill matrix written to " << o.kill_matrix_json << "\n";
  }
  fs::remove_all(logs);
  return 0;
}

}  // namespace meshtest::runner
