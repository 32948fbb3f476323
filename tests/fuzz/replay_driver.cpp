// Runs the fuzz target without libFuzzer (for the gcc build and ctest): every seed in the
// corpus folder, then a fixed number of deterministic mutations of each. A crash or an
// unexpected exception fails the run; it prints what it ran.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: " << argv[0] << " CORPUS_DIR [MUTATIONS_PER_SEED]\n";
    return 2;
  }
  int mutations = argc > 2 ? std::stoi(argv[2]) : 2000;
  std::vector<std::string> seeds;
  for (const auto& entry : std::filesystem::directory_iterator(argv[1])) {
    std::ifstream in(entry.path(), std::ios::binary);
    seeds.emplace_back((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  }
  const std::string alphabet = "abcdefghijklmnopqrstuvwxyz_.'[](){},:!=<>&|0123456789 \\";
  std::mt19937 rng(20261122);  // fixed: the same inputs every run
  size_t runs = 0;
  for (const auto& seed : seeds) {
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(seed.data()), seed.size());
    ++runs;
    for (int i = 0; i < mutations; ++i) {
      std::string s = seed;
      int edits = 1 + static_cast<int>(rng() % 4);
      for (int e = 0; e < edits; ++e) {
        size_t pos = s.empty() ? 0 : rng() % (s.size() + 1);
        switch (rng() % 3) {
          case 0:
            s.insert(pos, 1, alphabet[rng() % alphabet.size()]);
            break;
          case 1:
            if (!s.empty() && pos < s.size()) s.erase(pos, 1);
            break;
          default:
            if (!s.empty() && pos < s.size()) s[pos] = alphabet[rng() % alphabet.size()];
            break;
        }
      }
      LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(s.data()), s.size());
      ++runs;
    }
  }
  std::cout << "fuzz replay: " << seeds.size() << " seeds, " << runs << " inputs, no crash\n";
  return 0;
}
