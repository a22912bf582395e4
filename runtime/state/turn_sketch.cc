// Turn sketches and style features (API in turn_sketch.h).
#include "turn_sketch.h"

#include <sodium.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <string_view>
#include <vector>

namespace doberman::state {
namespace {

constexpr uint64_t kPrime = (uint64_t{1} << 61) - 1;  // Mersenne prime: cheap reduction

__extension__ using Uint128 = unsigned __int128;  // GCC and Clang; pedantic mode wants the marker

uint64_t MulMod(uint64_t a, uint64_t b) {
  const Uint128 p = static_cast<Uint128>(a) * b;
  uint64_t lo = static_cast<uint64_t>(p & kPrime);
  uint64_t hi = static_cast<uint64_t>(p >> 61);
  uint64_t r = lo + hi;
  return r >= kPrime ? r - kPrime : r;
}

uint64_t Hash64(const Key& key, std::string_view domain, std::string_view text) {
  uint64_t out = 0;
  crypto_generichash_state st;
  crypto_generichash_init(&st, key.data(), key.size(), sizeof out);
  crypto_generichash_update(&st, reinterpret_cast<const uint8_t*>(domain.data()), domain.size());
  crypto_generichash_update(&st, reinterpret_cast<const uint8_t*>(text.data()), text.size());
  crypto_generichash_final(&st, reinterpret_cast<uint8_t*>(&out), sizeof out);
  return out;
}

std::vector<std::string_view> Words(std::string_view text) {
  std::vector<std::string_view> words;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && text[i] == ' ') ++i;
    const size_t b = i;
    while (i < text.size() && text[i] != ' ') ++i;
    if (i > b) words.push_back(text.substr(b, i - b));
  }
  return words;
}

// Bucketed values: the baseline never holds more precision than this.
double Bucket(double v, double step) { return std::round(v / step) * step; }

}  // namespace

Sketch SketchOf(const Key& key, std::string_view folded) {
  // Slot i uses the permutation h -> a_i * h + b_i (mod 2^61 - 1), a_i and b_i drawn from the key.
  std::array<uint64_t, kSketchSize> a{}, b{};
  for (size_t i = 0; i < kSketchSize; ++i) {
    const char tag[2] = {static_cast<char>('a'), static_cast<char>(i)};
    a[i] = Hash64(key, "minhash-a", std::string_view(tag, 2)) % (kPrime - 1) + 1;
    b[i] = Hash64(key, "minhash-b", std::string_view(tag, 2)) % kPrime;
  }
  Sketch s;
  s.fill(UINT64_MAX);
  const std::vector<std::string_view> words = Words(folded);
  const size_t shingles = words.size() < 3 ? 1 : words.size() - 2;
  for (size_t k = 0; k < shingles; ++k) {
    const size_t last = std::min(words.size(), k + 3);
    std::string_view shingle;
    if (!words.empty()) {
      const char* begin = words[k].data();
      const char* end = words[last - 1].data() + words[last - 1].size();
      shingle = std::string_view(begin, static_cast<size_t>(end - begin));
    }
    const uint64_t h = Hash64(key, "shingle", shingle) % kPrime;
    for (size_t i = 0; i < kSketchSize; ++i) {
      const uint64_t v = (MulMod(a[i], h) + b[i]) % kPrime;
      s[i] = std::min(s[i], v);
    }
  }
  return s;
}

double Similarity(const Sketch& x, const Sketch& y) {
  size_t same = 0;
  for (size_t i = 0; i < kSketchSize; ++i) same += x[i] == y[i] ? 1 : 0;
  return static_cast<double>(same) / kSketchSize;
}

StyleFeatures StyleOf(std::string_view typed) {
  size_t letters = 0, upper = 0, digits = 0, punct = 0, words = 0, word_chars = 0;
  bool in_word = false;
  for (char ch : typed) {
    const auto c = static_cast<unsigned char>(ch);
    const bool space = c == ' ' || c == '\t' || c == '\n' || c == '\r';
    if (!space) {
      ++word_chars;
      if (!in_word) ++words;
    }
    in_word = !space;
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) ++letters;
    if (c >= 'A' && c <= 'Z') ++upper;
    if (c >= '0' && c <= '9') ++digits;
    if (c < 0x80 && !space && !std::isalnum(c)) ++punct;
  }
  const double n = std::max<double>(1, static_cast<double>(typed.size()));
  StyleFeatures f{};
  f[0] = Bucket(std::log2(n), 0.5);
  f[1] = Bucket(words > 0 ? static_cast<double>(word_chars) / static_cast<double>(words) : 0, 0.5);
  f[2] = Bucket(static_cast<double>(punct) / n, 0.05);
  f[3] = Bucket(letters > 0 ? static_cast<double>(upper) / static_cast<double>(letters) : 0, 0.05);
  f[4] = Bucket(static_cast<double>(digits) / n, 0.05);
  return f;
}

void StyleBaseline::Add(const StyleFeatures& f) {
  // Saturated: a count read back from a damaged store or journal must not overflow.
  if (turns < std::numeric_limits<int64_t>::max()) ++turns;
  for (size_t i = 0; i < kStyleFeatures; ++i) {
    const double delta = f[i] - mean[i];
    mean[i] += delta / static_cast<double>(turns);
    m2[i] += delta * (f[i] - mean[i]);
  }
}

double StyleBaseline::MaxZ(const StyleFeatures& f) const {
  if (turns < 2) return 0;
  double worst = 0;
  for (size_t i = 0; i < kStyleFeatures; ++i) {
    // A floor on the spread (one bucket): a person who always writes alike is not an outlier for a
    // one-bucket change.
    constexpr double kStep[kStyleFeatures] = {0.5, 0.5, 0.05, 0.05, 0.05};
    const double sd = std::max(std::sqrt(m2[i] / static_cast<double>(turns - 1)), kStep[i]);
    worst = std::max(worst, std::fabs(f[i] - mean[i]) / sd);
  }
  return worst;
}

}  // namespace doberman::state
