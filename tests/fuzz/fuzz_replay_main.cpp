// Runs a libFuzzer entry point on files (or every file in folders) given as
// arguments, without libFuzzer: the seed corpus as a regression test in
// builds that are not fuzzing builds (GCC).
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int main(int argc, char** argv) {
  int runs = 0;
  auto run = [&runs](const std::filesystem::path& file) {
    std::ifstream in(file, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
    ++runs;
  };
  for (int i = 1; i < argc; ++i) {
    if (std::filesystem::is_directory(argv[i])) {
      for (const auto& e : std::filesystem::directory_iterator(argv[i])) run(e.path());
    } else {
      run(argv[i]);
    }
  }
  std::printf("%d inputs replayed without a crash\n", runs);
  return runs > 0 ? 0 : 1;
}
