// The fuzz targets' driver where libFuzzer is not linked (the default g++ build): runs every
// file of the seed corpus, then mutations of them (bit flips, byte changes, inserted and deleted
// runs, splices of two inputs, repeated chunks) drawn from the in-tree PRNG, for at most
// --runs inputs and --seconds of wall time. It has no coverage feedback, which is what the
// `slow` libFuzzer run (scripts/fuzz.sh, clang) adds. On a crash (a signal) the input that
// caused it is written to crash-<target> in the working folder, for `fuzz_x crash-<target>`.
//
// usage: fuzz_x [--runs N] [--seconds S] [--seed N] [--max-len N] CORPUS_DIR_OR_FILE...
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include "sim/kernel/random.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size);

namespace {

using Bytes = std::string;

Bytes read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return Bytes(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// The input running now and where to save it, for the signal handler.
const Bytes* current_input = nullptr;
std::string crash_path;

extern "C" void save_input_and_die(int signal_number) {
  if (current_input != nullptr) {
    const int fd = ::open(crash_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      ssize_t ignored = ::write(fd, current_input->data(), current_input->size());
      (void)ignored;
      ::close(fd);
    }
    static const char message[] = "fuzz: crashed; the input is in the crash- file\n";
    ssize_t ignored = ::write(2, message, sizeof message - 1);
    (void)ignored;
  }
  ::signal(signal_number, SIG_DFL);
  ::raise(signal_number);
}

void run_one(const Bytes& input) {
  current_input = &input;
  LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(input.data()), input.size());
  current_input = nullptr;
}

Bytes mutate(Bytes input, const std::vector<Bytes>& corpus, redlock_sim::Rng& rng,
             std::size_t max_len) {
  const int rounds = 1 + static_cast<int>(rng.below(4));
  for (int round = 0; round < rounds; ++round) {
    const std::size_t at = input.empty() ? 0 : rng.below(input.size());
    switch (rng.below(7)) {
      case 0:  // flip a bit
        if (!input.empty()) input[at] = static_cast<char>(input[at] ^ (1 << rng.below(8)));
        break;
      case 1:  // an interesting byte
        if (!input.empty()) {
          static const char bytes[] = {'\0', '\xff', '\x1b', '"', '\\', '{', '[', '-', '9', '\n'};
          input[at] = bytes[rng.below(sizeof bytes)];
        }
        break;
      case 2:  // delete a run
        if (!input.empty()) input.erase(at, 1 + rng.below(16));
        break;
      case 3:  // insert random bytes
        for (uint64_t n = 1 + rng.below(8); n > 0; --n)
          input.insert(input.begin() + static_cast<std::ptrdiff_t>(std::min(at, input.size())),
                       static_cast<char>(rng.below(256)));
        break;
      case 4: {  // splice a piece of another input
        const Bytes& other = corpus[rng.below(corpus.size())];
        if (other.empty()) break;
        const std::size_t from = rng.below(other.size());
        input.insert(std::min(at, input.size()), other.substr(from, 1 + rng.below(64)));
        break;
      }
      case 5: {  // repeat a chunk (deep nesting, long strings)
        if (input.empty()) break;
        const Bytes chunk = input.substr(at, 1 + rng.below(8));
        for (uint64_t n = rng.below(64); n > 0; --n)
          input.insert(at, chunk);
        break;
      }
      default: {  // replace a number with an extreme one
        static const char* numbers[] = {"0",
                                        "-1",
                                        "9223372036854775807",
                                        "-9223372036854775808",
                                        "18446744073709551616",
                                        "1e308",
                                        "4611686018427387904"};
        const std::size_t digit = input.find_first_of("0123456789", at);
        if (digit == Bytes::npos) break;
        const std::size_t end = input.find_first_not_of("0123456789", digit);
        input.replace(digit, (end == Bytes::npos ? input.size() : end) - digit,
                      numbers[rng.below(std::size(numbers))]);
      }
    }
  }
  if (input.size() > max_len) input.resize(max_len);
  return input;
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t runs = 0;
  double seconds = 10;
  uint64_t seed = 1;
  std::size_t max_len = 64 * 1024;
  std::vector<std::filesystem::path> inputs;
  for (int i = 1; i < argc; ++i) {
    const std::string argument = argv[i];
    const bool has_value = i + 1 < argc;
    if (argument == "--runs" && has_value) {
      runs = std::strtoull(argv[++i], nullptr, 10);
    } else if (argument == "--seconds" && has_value) {
      seconds = std::strtod(argv[++i], nullptr);
    } else if (argument == "--seed" && has_value) {
      seed = std::strtoull(argv[++i], nullptr, 10);
    } else if (argument == "--max-len" && has_value) {
      max_len = std::strtoull(argv[++i], nullptr, 10);
    } else {
      inputs.emplace_back(argument);
    }
  }
  crash_path = "crash-" + std::filesystem::path(argv[0]).filename().string();
  for (int signal_number : {SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL, SIGTRAP})
    ::signal(signal_number, save_input_and_die);
  std::vector<Bytes> corpus;
  for (const auto& path : inputs) {
    if (std::filesystem::is_directory(path)) {
      std::vector<std::filesystem::path> files;
      for (const auto& entry : std::filesystem::directory_iterator(path))
        if (entry.is_regular_file()) files.push_back(entry.path());
      std::sort(files.begin(), files.end());
      for (const auto& file : files)
        corpus.push_back(read_file(file));
    } else if (std::filesystem::exists(path)) {
      corpus.push_back(read_file(path));
    } else {
      std::fprintf(stderr, "fuzz: no such file or folder: %s\n", path.c_str());
      return 2;
    }
  }
  if (corpus.empty()) corpus.emplace_back();
  const auto started = std::chrono::steady_clock::now();
  for (const Bytes& input : corpus)
    run_one(input);
  redlock_sim::Rng rng = redlock_sim::Rng::derive(seed, "fuzz-mutations");
  uint64_t done = 0;
  const auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  };
  while ((runs == 0 || done < runs) && elapsed() < seconds) {
    run_one(mutate(corpus[rng.below(corpus.size())], corpus, rng, max_len));
    ++done;
  }
  std::printf("fuzz: %zu corpus inputs and %llu mutations in %.1f s, no crash\n", corpus.size(),
              static_cast<unsigned long long>(done), elapsed());
  return 0;
}
