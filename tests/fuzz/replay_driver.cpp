// Runs the fuzz target without libFuzzer (for the gcc build and ctest): every input in the
// corpus folder, then a fixed number of deterministic mutations of them. A crash or an
// unexpected exception fails the run; it prints what it ran.
//
// How inputs are mutated follows what the target reads. A text target (the policy language,
// JSON, JWTs: `text`) gets characters drawn from its own seeds, so that mutations stay near the
// language and reach past the tokenizer. A binary target (ELF, CBOR, transactions, bundles:
// `bytes`) gets raw bytes of every value, bit flips, and stretches of itself copied in, as
// libFuzzer would give it.
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <set>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

enum class Mode { kText, kBytes };

// One edit of `s` at a random place.
void mutate(std::string& s, Mode mode, const std::string& alphabet, std::mt19937& rng) {
  size_t pos = s.empty() ? 0 : rng() % (s.size() + 1);
  auto anyChar = [&] {
    return mode == Mode::kBytes ? static_cast<char>(rng() & 0xff)
                                : alphabet[rng() % alphabet.size()];
  };
  switch (rng() % (mode == Mode::kBytes ? 5 : 3)) {
    case 0:
      s.insert(pos, 1, anyChar());
      break;
    case 1:
      if (pos < s.size()) s.erase(pos, 1 + rng() % std::min<size_t>(8, s.size() - pos));
      break;
    case 2:
      if (pos < s.size()) s[pos] = anyChar();
      break;
    case 3:  // a bit flipped: lengths, tags and flags one bit off
      if (pos < s.size()) s[pos] = static_cast<char>(s[pos] ^ (1 << (rng() % 8)));
      break;
    default:  // a stretch of the input copied elsewhere: repeated fields, nested items
      if (!s.empty()) {
        size_t from = rng() % s.size();
        size_t length = 1 + rng() % std::min<size_t>(32, s.size() - from);
        s.insert(pos, s.substr(from, length));
      }
      break;
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: " << argv[0] << " CORPUS_DIR [MUTATIONS] [text|bytes]\n";
    return 2;
  }
  // MUTATIONS in all, shared among the seeds (at least 10 each): a corpus that scripts/fuzz.sh
  // grew to hundreds of inputs costs ctest no more time than a handful of seeds.
  const long total = argc > 2 ? std::stol(argv[2]) : 20000;
  Mode mode = argc > 3 && std::string(argv[3]) == "bytes" ? Mode::kBytes : Mode::kText;
  std::vector<std::filesystem::path> paths;
  for (const auto& entry : std::filesystem::directory_iterator(argv[1]))
    paths.push_back(entry.path());
  std::sort(paths.begin(), paths.end());  // the same order, so the same inputs, every run
  std::vector<std::string> seeds;
  std::set<char> characters;
  for (const auto& path : paths) {
    std::ifstream in(path, std::ios::binary);
    seeds.emplace_back((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    characters.insert(seeds.back().begin(), seeds.back().end());
  }
  const long mutations = std::max<long>(10, total / std::max<long>(1, seeds.size()));
  std::string alphabet(characters.begin(), characters.end());
  alphabet += " \\\"'()[]{},:.0123456789";
  std::mt19937 rng(20261122);  // fixed: the same inputs every run
  size_t runs = 0;
  for (const auto& seed : seeds) {
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(seed.data()), seed.size());
    ++runs;
    for (long i = 0; i < mutations; ++i) {
      std::string s = seed;
      int edits = 1 + static_cast<int>(rng() % 4);
      for (int e = 0; e < edits; ++e) mutate(s, mode, alphabet, rng);
      LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(s.data()), s.size());
      ++runs;
    }
  }
  std::cout << "fuzz replay (" << (mode == Mode::kBytes ? "bytes" : "text") << "): " << seeds.size()
            << " seeds, " << runs << " inputs, no crash\n";
  return 0;
}
