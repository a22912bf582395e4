// Measures what the generic secret detector's exemptions cost and buy, with the runtime's own
// validator code: the recall cost is the share of random secrets (per alphabet and length) that
// each exemption would wrongly excuse; the benefit is how many high-entropy tokens of a real benign
// corpus each exemption silences. Prints Markdown tables for docs/quality.md. Not a test: a
// measurement.
#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "json.h"
#include "validators.h"

using namespace doberman::internal;

namespace {

struct Alphabet {
  const char* name;
  std::string chars;
};

bool IsTokenChar(unsigned char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' ||
         c == '/' || c == '=' || c == '_' || c == '-';
}

struct Counts {
  size_t total = 0, hashes = 0, identifiers = 0, placeholder = 0, low_entropy = 0, any = 0;
};

void Classify(std::string_view v, double min_entropy, Counts* c) {
  ++c->total;
  bool h = LooksLikeHashOrUuid(v), i = LooksLikeIdentifierOrPath(v), p = LooksLikePlaceholder(v);
  bool e = ShannonEntropy(v) < min_entropy;
  c->hashes += h;
  c->identifiers += i;
  c->placeholder += p;
  c->low_entropy += e;
  c->any += (h || i || p || e);
}

double Pct(size_t a, size_t b) {
  return b ? 100.0 * static_cast<double>(a) / static_cast<double>(b) : 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string benign;
  size_t samples = 100000;
  double min_entropy = 3.6;
  size_t min_length = 24;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--benign")) benign = argv[i + 1];
    if (!std::strcmp(argv[i], "--samples")) samples = std::stoul(argv[i + 1]);
    if (!std::strcmp(argv[i], "--min-entropy")) min_entropy = std::stod(argv[i + 1]);
    if (!std::strcmp(argv[i], "--min-length")) min_length = std::stoul(argv[i + 1]);
  }
  const std::string upper = "ABCDEFGHIJKLMNOPQRSTUVWXYZ", lower = "abcdefghijklmnopqrstuvwxyz",
                    digits = "0123456789";
  const std::vector<Alphabet> alphabets = {
      {"base64url", upper + lower + digits + "-_"},
      {"base64", upper + lower + digits + "+/"},
      {"base62", upper + lower + digits},
      {"lower alnum", lower + digits},
  };
  std::mt19937_64 rng(20261130);
  std::printf(
      "### Recall cost: random secrets wrongly excused (%zu per row, entropy floor %.1f)\n\n",
      samples, min_entropy);
  std::printf(
      "| alphabet | length | hashes/UUID | identifier/path | placeholder | below entropy floor | "
      "any (total cost) |\n");
  std::printf("|---|---|---|---|---|---|---|\n");
  for (const Alphabet& a : alphabets) {
    for (size_t len : {24, 32, 40, 43, 64}) {
      Counts c;
      std::uniform_int_distribution<size_t> pick(0, a.chars.size() - 1);
      std::string s(len, ' ');
      for (size_t n = 0; n < samples; ++n) {
        for (char& ch : s) ch = a.chars[pick(rng)];
        Classify(s, min_entropy, &c);
      }
      std::printf("| %s | %zu | %.3f %% | %.3f %% | %.3f %% | %.3f %% | %.3f %% |\n", a.name, len,
                  Pct(c.hashes, c.total), Pct(c.identifiers, c.total), Pct(c.placeholder, c.total),
                  Pct(c.low_entropy, c.total), Pct(c.any, c.total));
    }
  }
  if (benign.empty()) return 0;

  // Benefit: tokens of at least min_length in real benign text, what the bare entropy check would
  // flag, and what each exemption removes from that.
  std::ifstream in(benign);
  std::string line;
  size_t tokens = 0, flagged = 0, by_hash = 0, by_ident = 0, by_placeholder = 0, remaining = 0;
  JsonLimits limits;
  while (std::getline(in, line)) {
    JsonValue v;
    JsonError err;
    if (!ParseJson(line, limits, &v, &err)) continue;
    const JsonValue* ti = v.Find("tool_input");
    std::string text;
    if (ti) {
      if (const std::string* s = ti->FindString("content")) text = *s;
      if (const std::string* s = ti->FindString("command")) text = *s;
    }
    if (const std::string* s = v.FindString("prompt")) text = *s;
    size_t i = 0;
    while (i < text.size()) {
      if (!IsTokenChar(static_cast<unsigned char>(text[i]))) {
        ++i;
        continue;
      }
      size_t j = i;
      while (j < text.size() && IsTokenChar(static_cast<unsigned char>(text[j]))) ++j;
      if (j - i >= min_length) {
        std::string_view tok(text.data() + i, j - i);
        ++tokens;
        if (ShannonEntropy(tok) >= min_entropy) {
          ++flagged;
          bool h = LooksLikeHashOrUuid(tok), id = LooksLikeIdentifierOrPath(tok),
               p = LooksLikePlaceholder(tok);
          by_hash += h;
          by_ident += id;
          by_placeholder += p;
          remaining += !(h || id || p);
        }
      }
      i = j;
    }
  }
  std::printf("\n### Benefit: high-entropy tokens in the benign corpus\n\n");
  std::printf(
      "| runs of token characters >= %zu | above entropy floor (alarms without exemptions) | "
      "excused as hash/UUID | as identifier/path | as placeholder | alarms left |\n",
      min_length);
  std::printf("|---|---|---|---|---|---|\n");
  std::printf("| %zu | %zu | %zu | %zu | %zu | %zu |\n", tokens, flagged, by_hash, by_ident,
              by_placeholder, remaining);
  return 0;
}
