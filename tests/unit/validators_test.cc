// Validators: entropy, value extraction, the placeholder filter and the hash/identifier exemptions,
// on concrete shapes (statistical recall costs are measured by tests/quality/exemption_cost.cc).
#include "validators.h"

#include <gtest/gtest.h>

#include <vector>

#include <cctype>

#include <algorithm>
#include <array>
#include <cmath>
#include <random>
#include <string>

namespace doberman::internal {
namespace {

// Every value ForEachCarriedValue offers for `text`, in order.
std::vector<std::string> CarriedValues(std::string_view text, size_t min_length) {
  std::vector<std::string> got;
  ForEachCarriedValue(
      text, min_length,
      [](void* ctx, std::string_view v) {
        static_cast<std::vector<std::string>*>(ctx)->emplace_back(v);
        return true;
      },
      &got);
  return got;
}

// A text of fewer than `below` characters drawn from `alphabet`: the walk's random inputs.
std::string RandomText(std::mt19937& rng, std::string_view alphabet, size_t below) {
  std::string text(rng() % below, ' ');
  for (char& c : text) c = alphabet[rng() % alphabet.size()];
  return text;
}

// ExtractValue at every end of a run of token characters, the values at least `min_length` long,
// in order: what ForEachCarriedValue must yield (it may add URL-path tails).
std::vector<std::string> ExtractedAtRunEnds(const std::string& text, size_t min_length) {
  auto token = [](char ch) {
    const auto c = static_cast<unsigned char>(ch);
    return std::isalnum(c) || c == '+' || c == '=' || c == '_' || c == '-';
  };
  std::vector<std::string> values;
  for (size_t e = 1; e <= text.size(); ++e) {
    if (!token(text[e - 1]) || (e < text.size() && token(text[e]))) continue;
    const std::string_view v = ExtractValue(text, e, e);
    if (v.size() >= min_length) values.emplace_back(v);
  }
  return values;
}

// How many of `expected`, in order, appear in `got` (a subsequence match).
size_t MatchedInOrder(const std::vector<std::string>& got,
                      const std::vector<std::string>& expected) {
  size_t k = 0;
  for (const std::string& g : got) {
    if (k < expected.size() && g == expected[k]) ++k;
  }
  return k;
}

TEST(Validators, Entropy) {
  EXPECT_DOUBLE_EQ(ShannonEntropy(""), 0);
  EXPECT_DOUBLE_EQ(ShannonEntropy("aaaa"), 0);
  EXPECT_DOUBLE_EQ(ShannonEntropy("abab"), 1);
  EXPECT_GT(ShannonEntropy("k8Qz2LmX9vRt4WpB7nYc3JdF"), 4.0);
}

// The table-driven entropy equals the textbook sum -p*log2(p), including counts past the table.
TEST(Validators, EntropyMatchesTheDefinition) {
  std::mt19937 rng(7);
  for (int iter = 0; iter < 2000; ++iter) {
    std::string s(1 + rng() % (iter % 10 == 0 ? 3000 : 80), '\0');
    const unsigned alphabet = 1 + rng() % 256;
    for (char& c : s) c = static_cast<char>(rng() % alphabet);
    std::array<double, 256> counts{};
    for (unsigned char c : s) ++counts[c];
    double expected = 0;
    for (double c : counts) {
      if (c > 0) expected -= c / s.size() * std::log2(c / s.size());
    }
    ASSERT_NEAR(ShannonEntropy(s), expected, 1e-9) << "length " << s.size();
  }
}

TEST(Validators, ExtractValue) {
  std::string t = "API_KEY=\"k8Qz2LmX9vRt4WpB7nYc3JdF\";";
  EXPECT_EQ(ExtractValue(t, 0, t.size()), "k8Qz2LmX9vRt4WpB7nYc3JdF");
  std::string u = "token: abcdEFGH1234ijklMNOP";
  EXPECT_EQ(ExtractValue(u, 0, u.size()), "abcdEFGH1234ijklMNOP");
  // Without an assignment the match widens to the whole token.
  std::string w = "see xyzAB12cdEF34ghIJ56klMN here";
  EXPECT_EQ(ExtractValue(w, 8, 12), "xyzAB12cdEF34ghIJ56klMN");
  EXPECT_EQ(ExtractValue(w, 10, 5), "");  // inverted span
  EXPECT_EQ(ExtractValue(w, 0, 999), "");
  // No start of match, the match ending on an escaped closing quote (code in a JSON string): the
  // backslash is the quote's escape, not part of the value.
  std::string j = R"(api_key = \"Zq8vN2xLw4Rt7YpK1mBsQ9\")";
  EXPECT_EQ(ExtractValue(j, j.size(), j.size()), "Zq8vN2xLw4Rt7YpK1mBsQ9");
  // No start of match, the match ending on the line break after the value (a guard class such as
  // `([^A-Za-z0-9_-]|$)` mid-file): the value is the run before it, not the next line's first word.
  const std::string nl = "token Bk4opH1Dr8h97sFvauP7\nnext line\n";
  const size_t after_newline = nl.find('\n') + 1;
  EXPECT_EQ(ExtractValue(nl, after_newline, after_newline), "Bk4opH1Dr8h97sFvauP7");
  const std::string crlf = "key Zq8vN2xLw4Rt7YpK1mBsQ9\r\nDEBUG=1\r\n";
  const size_t after_crlf = crlf.find('\n') + 1;
  EXPECT_EQ(ExtractValue(crlf, after_crlf, after_crlf), "Zq8vN2xLw4Rt7YpK1mBsQ9");
  const std::string quoted_crlf = "key = \"Zq8vN2xLw4Rt7YpK1mBsQ9\"\r\nDEBUG=1\r\n";
  const size_t after_quoted_crlf = quoted_crlf.find('\n') + 1;
  EXPECT_EQ(ExtractValue(quoted_crlf, after_quoted_crlf, after_quoted_crlf),
            "Zq8vN2xLw4Rt7YpK1mBsQ9");
}

// A quoted literal goes on through '#' (a password's symbol); unquoted, or between quotes that
// differ, '#' still ends the value (a URL fragment, a comment).
TEST(Validators, QuotedValueGoesThroughHash) {
  const std::string q = R"(vm_password = "Zq7mR2#pLw9")";
  EXPECT_EQ(ExtractValue(q, q.size(), q.size()), "Zq7mR2#pLw9");
  const std::string s = "'pass': 'a#b#Kx9mQ2vL'";
  EXPECT_EQ(ExtractValue(s, s.size(), s.size()), "a#b#Kx9mQ2vL");
  const std::string bare = "password=Zq7mR2#pLw9";
  EXPECT_EQ(ExtractValue(bare, bare.size(), bare.size()), "pLw9");
  const std::string mixed = R"(x = 'Zq7mR2#pLw9")";
  EXPECT_EQ(ExtractValue(mixed, mixed.size(), mixed.size()), "pLw9");
  const std::string url = R"(href="https://example.com/cb#access_token=Zq7mR2pLw9x")";
  EXPECT_EQ(ExtractValue(url, url.size(), url.size()), "Zq7mR2pLw9x");
  // Both pieces are carried: the whole literal and what follows the '#'.
  const std::vector<std::string> got = CarriedValues(q, 4);
  EXPECT_NE(std::find(got.begin(), got.end(), "Zq7mR2#pLw9"), got.end());
  EXPECT_NE(std::find(got.begin(), got.end(), "pLw9"), got.end());
}

// '&' and '?' likewise: symbols of a quoted password, a URL query's separators outside quotes, and
// inside quotes a query's `&name=value` still ends at its '='.
TEST(Validators, QuotedValueGoesThroughAmpersandAndQuestionMark) {
  const std::string q = R"(password = "Tr0ubxdor&3xK9q?z")";
  EXPECT_EQ(ExtractValue(q, q.size(), q.size()), "Tr0ubxdor&3xK9q?z");
  const std::string bare = "password=Tr0ubxdor&3xK9q";
  EXPECT_EQ(ExtractValue(bare, bare.size(), bare.size()), "3xK9q");
  const std::string url = R"(u = "https://api.example.com/v1?user=dev&token=Zq7mR2pLw9x")";
  EXPECT_EQ(ExtractValue(url, url.size(), url.size()), "Zq7mR2pLw9x");
  const std::vector<std::string> got = CarriedValues(q, 4);
  EXPECT_NE(std::find(got.begin(), got.end(), "Tr0ubxdor&3xK9q?z"), got.end());
  const std::vector<std::string> from_url = CarriedValues(url, 8);
  EXPECT_NE(std::find(from_url.begin(), from_url.end(), "Zq7mR2pLw9x"), from_url.end());
  EXPECT_EQ(std::find(from_url.begin(), from_url.end(), "dev&token=Zq7mR2pLw9x"), from_url.end());
}

TEST(Validators, Placeholders) {
  for (const char* p :
       {"your_api_key_here", "changeme", "<TOKEN>", "${GITHUB_TOKEN}", "xxxxxxxxxxxx",
        "$SECRET_VALUE", "os.environ['X']", "process.env.API_KEY", "1234567890", "aaaaaaaaaaaa",
        "https://example.com/x", "REDACTED", "short",
        // demo values: HTML-escaped <...>, typed sequences inside an otherwise random value
        "&lt;YOURPASSWORD&gt;", "a1b2c3d4e5f6g7h8i9j0k1l2m3n4", "00QCjAl4MlV-ABCDEFGHIJKL-0Hmj",
        "OOzkR1+hF+1ABCsIFDJMEUtqmtnZ1234567890",
        // an instruction to the reader, misspelled or in one word
        "YOURPASSWROD", "YourApiKeyGoesHere", "lt;YOURPASSWROD"}) {
    EXPECT_TRUE(LooksLikePlaceholder(p)) << p;
  }
  for (const char* s : {"k8Qz2LmX9vRt4WpB7nYc3JdF", "/Wf3PzCwtzcwHmBgYGcwbZz8",
                        "sk_live_4eC39HqLyjWDarjtT1zdp7dc", "yoUq8Lx2Vr9Tz4Kw"}) {
    EXPECT_FALSE(LooksLikePlaceholder(s)) << s;
  }
}

// The placeholder filter's definition, written the slow, obvious way: each marker compared
// caselessly at every position. LooksLikePlaceholder (lower-cased copy, string_view::find, and a
// direct path for long values) must agree with it everywhere.
bool ReferencePlaceholder(std::string_view v) {
  auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
  auto contains = [&](std::string_view m) {
    for (size_t i = 0; i + m.size() <= v.size(); ++i) {
      size_t j = 0;
      while (j < m.size() && lower(v[i + j]) == m[j]) ++j;
      if (j == m.size()) return true;
    }
    return false;
  };
  if (v.size() < 6) return true;
  for (std::string_view m :
       {"your_",        "your-",       "yourapi",    "yourkey",     "yoursecret", "yourtoken",
        "_here",        "-here",       "changeme",   "change_me",   "change-me",  "placeholder",
        "example",      "dummy",       "sample",     "redacted",    "xxxx",       "****",
        "....",         "<",           "${",         "{{",          "%s",         "replace",
        "insert",       "fixme",       "todo",       "fake",        "notreal",    "not_a_real",
        "secret_value", "mysecret",    "mypassword", "password123", "hunter2",    "s3cr3t",
        "changeit",     "process.env", "os.environ", "getenv",      "://"}) {
    if (contains(m)) return true;
  }
  auto opens_with = [&](std::string_view m) {
    return v.size() >= m.size() &&
           std::equal(m.begin(), m.end(), v.begin(), [&](char a, char b) { return a == lower(b); });
  };
  if (opens_with("your") || opens_with("lt;")) return true;
  if (v.front() == '$' || v.front() == '~' ||
      (v.size() > 2 && v.front() == '%' && v.back() == '%') ||
      (v.front() == '.' && v.size() > 1 && v[1] == '/')) {
    return true;
  }
  bool same = true, ascending = true;
  for (size_t i = 1; i < v.size(); ++i) {
    same = same && v[i] == v[0];
    ascending = ascending && (v[i] == v[i - 1] + 1 || (v[i - 1] == '9' && v[i] == '0'));
  }
  return same || ascending;
}

TEST(Validators, PlaceholderFilterMatchesItsDefinition) {
  std::mt19937 rng(11);
  const std::string pieces[] = {"YOUR_", "Your",   "lT;",         "Here",    "ChangeMe", "xXxX",
                                "*",     ".",      "<",           "$",       "{",        "%S",
                                "://",   "GetEnv", "s3Cr3T",      "a",       "Z",        "7",
                                "_",     "-",      "Process.Env", "example", "q",        "9"};
  size_t placeholders = 0;
  for (int iter = 0; iter < 20000; ++iter) {
    std::string v;
    const size_t parts = 1 + rng() % (iter % 50 == 0 ? 400 : 12);  // some past the 1024-byte copy
    for (size_t k = 0; k < parts; ++k) {
      if (rng() % 3 == 0) {
        v += pieces[rng() % std::size(pieces)];
      } else {
        v += static_cast<char>(
            "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"[rng() % 62]);
      }
    }
    const bool expected = ReferencePlaceholder(v);
    placeholders += expected;
    ASSERT_EQ(LooksLikePlaceholder(v), expected) << v;
  }
  // Both answers occur often enough for the comparison to mean something.
  EXPECT_GT(placeholders, 2000u);
  EXPECT_LT(placeholders, 18000u);
}

// The identifier exemption's definition, as first written: each segment split into atoms, then each
// atom checked in its own pass. LooksLikeIdentifierOrPath (one pass per segment, class table) must
// agree with it everywhere.
bool ReferenceIdentifierSegment(std::string_view w) {
  auto lower = [](char c) { return c >= 'a' && c <= 'z'; };
  auto upper = [](char c) { return c >= 'A' && c <= 'Z'; };
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  auto hexc = [&](char c) { return digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); };
  auto wide = [](char c) { return (static_cast<unsigned char>(c) & 0x80) != 0; };
  auto plain_atom = [&](std::string_view a) {
    if (digit(a[0])) return a.size() <= 8;
    if (wide(a[0])) return true;  // a word in another script, or accented letters
    bool all_lower = true, all_upper = true, capitalized = upper(a[0]);
    size_t vowels = 0;
    for (size_t k = 0; k < a.size(); ++k) {
      all_lower = all_lower && lower(a[k]);
      all_upper = all_upper && upper(a[k]);
      if (k > 0) capitalized = capitalized && lower(a[k]);
      const char c = upper(a[k]) ? static_cast<char>(a[k] - 'A' + 'a') : a[k];
      vowels += (c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u' || c == 'y');
    }
    if (!(all_lower || all_upper || capitalized)) return false;
    return a.size() < 7 || vowels * 7 >= a.size();
  };
  if (w.empty()) return true;
  if (w.size() >= 12) {
    bool hex = true, has_digit = false, has_other = false;
    for (char c : w) {
      hex = hex && hexc(c);
      (digit(c) ? has_digit : has_other) = true;
    }
    if (hex && has_digit && has_other) return true;
  }
  size_t atoms = 0, digit_runs = 0, start = 0;
  for (size_t i = 1; i <= w.size(); ++i) {
    const bool boundary = i == w.size() || (digit(w[i]) != digit(w[i - 1])) ||
                          (wide(w[i]) != wide(w[i - 1])) || (upper(w[i]) && lower(w[i - 1])) ||
                          (upper(w[i]) && i + 1 < w.size() && lower(w[i + 1]) && upper(w[i - 1]));
    if (!boundary) continue;
    const std::string_view atom = w.substr(start, i - start);
    if (!(lower(atom[0]) || upper(atom[0]) || digit(atom[0]) || wide(atom[0])) ||
        !plain_atom(atom)) {
      return false;
    }
    ++atoms;
    digit_runs += digit(atom[0]) ? 1 : 0;
    start = i;
  }
  return digit_runs <= 2 && (w.size() < 8 || w.size() >= 3 * atoms ||
                             (w.size() < 12 && digit_runs == 1 && atoms <= 3));
}

bool ReferenceIdentifierOrPath(std::string_view v) {
  const std::string_view separators =
      v.find_first_of("/.") != std::string_view::npos ? "/_.-=+:@" : "/_.-=+:";
  size_t start = 0, parts = 0;
  for (size_t i = 0; i <= v.size(); ++i) {
    if (i == v.size() || separators.find(v[i]) != std::string_view::npos) {
      if (!ReferenceIdentifierSegment(v.substr(start, i - start))) return false;
      ++parts;
      start = i + 1;
    }
  }
  return parts > 0;
}

TEST(Validators, IdentifierExemptionMatchesItsDefinition) {
  std::mt19937 rng(17);
  const std::string pieces[] = {"get",
                                "Value",
                                "HTTP",
                                "Server",
                                "v2",
                                "123456789",
                                "42",
                                "sha",
                                "x",
                                "Q",
                                "deadbeef0123",
                                "aBc",
                                "Yy",
                                "strength",
                                "/",
                                "_",
                                ".",
                                "-",
                                "=",
                                "+",
                                ":",
                                "!",
                                "rhythm",
                                "XMLHttp",
                                "k3x9q2",
                                "s2member",
                                "@",
                                "ZZ",
                                "\xc3\xa9",
                                "\xe6\x96\x87\xe4\xbb\xb6"};
  const char* base62 = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  size_t identifiers = 0;
  for (int iter = 0; iter < 50000; ++iter) {
    std::string v;
    const size_t parts = 1 + rng() % 10;
    for (size_t k = 0; k < parts; ++k) {
      if (rng() % 3 == 0) {
        for (size_t r = 1 + rng() % 14; r > 0; --r) v += base62[rng() % 62];
      } else {
        v += pieces[rng() % std::size(pieces)];
      }
    }
    const bool expected = ReferenceIdentifierOrPath(v);
    identifiers += expected;
    ASSERT_EQ(LooksLikeIdentifierOrPath(v), expected) << v;
  }
  // Both answers occur often enough for the comparison to mean something.
  EXPECT_GT(identifiers, 5000u);
  EXPECT_LT(identifiers, 45000u);
}

TEST(Validators, HashesAndUuids) {
  EXPECT_TRUE(LooksLikeHashOrUuid("7ee81c8821671157968b097f3e55309a1faa511e"));
  EXPECT_TRUE(LooksLikeHashOrUuid("123e4567-e89b-12d3-a456-426614174000"));
  EXPECT_FALSE(LooksLikeHashOrUuid("7ee81c88216711"));  // too short for a digest
  EXPECT_FALSE(LooksLikeHashOrUuid("k8Qz2LmX9vRt4WpB7nYc3JdFk8Qz2LmX"));
}

TEST(Validators, IdentifiersAndPaths) {
  for (const char* id :
       {"approximateCubicArcLength", "__pyx_api_f_4lxml_5etree_elementFactory",
        "category=DeprecationWarning",
        "com/python/cpython/commit/a24107b04c1277e3c1105f98aff5bfa3a98b33a0",
        "PYTHONIC_INCLUDE_NUMPY_INTERSECT1D_HPP", "usr/lib/x86_64-linux-gnu/libhs.so",
        "test_in1d_with_arrays_containing_tuples", "parseHTTPResponseHeaders",
        // A name with a digit inside a short word; '@' inside a path or before a version.
        "ws-plugin--s2member-amazon-s3-comp-files-access-key", "web3auth_client_id",
        "/en/enterprise-server@3.0/authentication", "node_modules/@babel/core",
        "enterprise-server@3.0"}) {
    EXPECT_TRUE(LooksLikeIdentifierOrPath(id)) << id;
  }
  for (const char* secret :
       {"k8Qz2LmX9vRt4WpB7nYc3JdF", "Wf3PzCwtzcwHmBgYGcwbZz8wHaCAQ",
        "ghp_R7d9Qm2LxZ8vT4nB6kW1pY3cJ5fH0sA9eU2g", "a8k3x9q2m7v4c1z6b5n0w3e8",
        // '@' outside a path stays inside its segment (a password, not two words).
        "admin@corp", "px-dep-d4c3b2a1-f6e5-h8g7-j1i8-p5o0n5m3l2k1"}) {
    EXPECT_FALSE(LooksLikeIdentifierOrPath(secret)) << secret;
  }
}

TEST(Validators, WordsInOtherScriptsAreNotSecrets) {
  // Translated program messages: `token: chybový kód`, `--pinnedpubkey=文件/散列值`,
  // `ключ=значение`.
  for (const char* words :
       {"chybov\xc3\xbd", "\xe6\x96\x87\xe4\xbb\xb6/\xe6\x95\xa3\xe5\x88\x97\xe5\x80\xbc",
        "\xd0\xb7\xd0\xbd\xd0\xb0\xd1\x87\xd0\xb5\xd0\xbd\xd0\xb8\xd0\xb5",
        "Stra\xc3\x9f"
        "enname",
        "valor_predeterminado_n\xc3\xbamero"}) {
    EXPECT_TRUE(LooksLikeIdentifierOrPath(words)) << words;
  }
  // Such bytes sprinkled between a secret's characters, or one appended, do not excuse it: each
  // run of them is an atom of its own, so the atoms stay short.
  for (const char* secret :
       {"k\xc3\xa9Q\xc3\xa9z\xc3\xa9L\xc3\xa9m\xc3\xa9X\xc3\xa9v\xc3\xa9R\xc3\xa9t",
        "Wf3PzCwtzcwHmBgYGcwbZz8wHaCAQ\xc3\xa9", "\xc3\xa9k8Qz2LmX9vRt4WpB7nYc3JdF"}) {
    EXPECT_FALSE(LooksLikeIdentifierOrPath(secret)) << secret;
  }
}

TEST(Validators, PassesValidatorsCombines) {
  ValidatorSpec spec;
  spec.min_entropy = 3.5;
  spec.min_length = 20;
  spec.placeholder = true;
  spec.exempt_hashes = true;
  spec.exempt_identifiers = true;
  auto passes = [&](const std::string& t) { return PassesValidators(spec, t, 0, t.size()); };
  EXPECT_TRUE(passes("SECRET=k8Qz2LmX9vRt4WpB7nYc3JdF"));
  EXPECT_FALSE(passes("SECRET=your_secret_key_goes_here"));
  EXPECT_FALSE(passes("SECRET=7ee81c8821671157968b097f3e55309a"));
  EXPECT_FALSE(passes("SECRET=DeprecationWarningCategory"));
  EXPECT_FALSE(passes("SECRET=short"));
  EXPECT_FALSE(passes("SECRET=abababababababababababab"));  // low entropy
  // A Go module checksum (h1: + 43 base64 + '=') is a hash, whatever its entropy.
  // (Judged from the match end, as the scanner reports it.)
  auto at_end = [&](const std::string& t) { return PassesValidators(spec, t, t.size(), t.size()); };
  EXPECT_FALSE(at_end("mod v1.3.0 h1:t6JiXgmwXMjEs8VusXIJk2BXHsn+wx8BZdTaoZ5fu7I="));
  EXPECT_TRUE(at_end("mod v1.3.0 x1:t6JiXgmwXMjEs8VusXIJk2BXHsn+wx8BZdTaoZ5fu7I="));
}

TEST(Validators, HexBodyBehindAPrefixIsNotAnIdentifier) {
  ValidatorSpec spec;
  spec.min_length = 8;
  spec.min_entropy = 3.0;
  spec.exempt_identifiers = true;
  auto passes = [&](const std::string& t) { return PassesValidators(spec, t, 0, t.size()); };
  // The identifier check alone excuses a long hex part as a digest...
  EXPECT_TRUE(LooksLikeIdentifierOrPath("sk_d21e2be3622049c7809f95cc02313821"));
  // ...but joined to a vendor prefix by '_' or '-' it is a key's body.
  EXPECT_TRUE(passes("XI_API_KEY=sk_d21e2be3622049c7809f95cc02313821"));
  EXPECT_TRUE(passes("secret=s-s4t2ud-d91c558a2ba6b47f60f690efc20a33d2"));
  // A bare hex value keeps the excuse (a digest behind a cache key is left to the rules that read
  // the name), and so does a short hex part (a build id).
  EXPECT_FALSE(passes("key=d21e2be3622049c7809f95cc02313821"));
  EXPECT_FALSE(passes("key=build_3f2a9c1d2e4b"));
}

TEST(Validators, PlaceholderJudgedOnTheRunThroughSlashes) {
  ValidatorSpec spec;
  spec.placeholder = true;
  // The match ends inside the first segment; the documentation key ends in EXAMPLEKEY.
  const std::string doc = "secret = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
  const size_t end = doc.find('/');
  EXPECT_FALSE(PassesValidators(spec, doc, end, end));
  const std::string real = "secret = wJalrXUtnFEMI/K7MDENG/bPxRfiCYzQm7rT2vXz9";
  EXPECT_TRUE(PassesValidators(spec, real, end, end));
  // A URL path (a '.' in the run) is not one value: its later segments do not excuse it.
  const std::string url = "k=Qm7rT2vXz9Lk4Pn8/docs.example/sample";
  const size_t e2 = url.find('/');
  EXPECT_TRUE(PassesValidators(spec, url, e2, e2));
}

}  // namespace
}  // namespace doberman::internal

namespace doberman::internal {
namespace {

TEST(Validators, ValueFromMatchEndInUrlsAndEncodings) {
  std::string url = "https://webhook.example.net/AKIAQWERTYUIOPASDFGH/upload";
  size_t end = url.find("/upload");
  EXPECT_EQ(ExtractValue(url, end, end), "AKIAQWERTYUIOPASDFGH");
  std::string query = "https://x.io/?k=%22ghp_R7d9Qm2LxZ8vT4nB6kW1pY3cJ5fH0sA9eU2g%22";
  EXPECT_FALSE(LooksLikePlaceholder("%22ghp_R7d9Qm2LxZ8vT4nB6kW1pY3cJ5fH0sA9eU2g%22x"));
  EXPECT_TRUE(LooksLikePlaceholder("%API_KEY%"));
  std::string b64 = "key=ab/cd+ef/GH12ij34KL56mn78==;";
  size_t e2 = b64.size() - 1;
  EXPECT_EQ(ExtractValue(b64, e2, e2), "ab/cd+ef/GH12ij34KL56mn78==");
  std::string uri = "postgres://app:S3cr3tPassw0rdValue@db.internal:5432/x";
  size_t at = uri.find('@') + 1;
  EXPECT_EQ(ExtractValue(uri, at, at), "S3cr3tPassw0rdValue");
}

// ForEachCarriedValue is a linear rewrite of "ExtractValue at every run end": on random texts over
// the characters that matter, it yields exactly ExtractValue's values (plus URL-path tails).
TEST(CarriedValues, AgreeWithExtractValueAtEveryRunEnd) {
  std::mt19937 rng(7);
  const std::string alphabet = "aZ9+/=_-. :'\"=?&#@,`\t\n";
  for (int round = 0; round < 3000; ++round) {
    const std::string text = RandomText(rng, alphabet, 60);
    const std::vector<std::string> expected = ExtractedAtRunEnds(text, 2);
    // Every ExtractValue value is yielded, in order; extra yields are URL-path tails only.
    EXPECT_EQ(MatchedInOrder(CarriedValues(text, 2), expected), expected.size())
        << "text: [" << text << "]";
  }
  // The 4 KiB window of ExtractValue applies too.
  const std::string long_value(5000, 'a');
  const std::vector<std::string> got = CarriedValues(long_value, 8);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0], std::string(ExtractValue(long_value, 5000, 5000)));
}

// The walk keeps the last '/' and '.' as it goes rather than searching each value for them: a
// host and path is cut to its last segment (no value holds both a '/' and a '.'), a path without
// a host gives itself and its last segment, and an '=' block before either still stops a value.
TEST(CarriedValues, PathCuts) {
  std::mt19937 rng(13);
  const std::string alphabet = "aZ9+/=_-. :'\"=?&#@,`\t\nbcdef/./";
  for (int round = 0; round < 5000; ++round) {
    const std::string text = RandomText(rng, alphabet, 120);
    for (const std::string& g : CarriedValues(text, 1)) {
      EXPECT_FALSE(g.find('/') != std::string::npos && g.find('.') != std::string::npos)
          << "[" << g << "] in [" << text << "]";
    }
  }
  using V = std::vector<std::string>;
  EXPECT_EQ(CarriedValues("x https://api.example.com/v2/AKIAIOSFODNN7ABCDEFG y", 8),
            (V{"api.example", "api.example.com", "AKIAIOSFODNN7ABCDEFG"}));
  EXPECT_EQ(CarriedValues("key=secrets/Zq8vN2xLw4Rt7YpK1mBs", 8),
            (V{"secrets/Zq8vN2xLw4Rt7YpK1mBs", "Zq8vN2xLw4Rt7YpK1mBs"}));
  EXPECT_EQ(CarriedValues("tok==/Zq8vN2xLw4Rt7YpK1mBs", 8),
            (V{"/Zq8vN2xLw4Rt7YpK1mBs", "Zq8vN2xLw4Rt7YpK1mBs"}));
  EXPECT_EQ(CarriedValues("tok==.Zq8vN2xLw4Rt7YpK1mBs/abcdefghij", 8),
            (V{".Zq8vN2xLw4Rt7YpK1mBs", "abcdefghij"}));
  EXPECT_EQ(CarriedValues("'pw#Zq8v/N2xL.w4Rt7YpK1mBs'", 8),
            (V{"Zq8v/N2xL", "N2xL.w4Rt7YpK1mBs", "N2xL.w4Rt7YpK1mBs"}));
  EXPECT_EQ(CarriedValues("a/b.c/dddddddd.eeeeeeee/ffffffffgg", 8),
            (V{"dddddddd", "dddddddd.eeeeeeee", "ffffffffgg"}));
}

// The minimum length only filters: the walk skips short runs and the inside of long ones without
// examining them, and still yields, in order, every long-enough value ExtractValue bounds at a run
// end, on texts longer than ExtractValue's 60-byte rounds above and with long runs.
TEST(CarriedValues, MinimumLengthOnlyFilters) {
  std::mt19937 rng(11);
  const std::string alphabet = "aZ9+/=_-. :'\"=?&#@,`\t\nbcdefghijklmnop";
  for (int round = 0; round < 5000; ++round) {
    const std::string text = RandomText(rng, alphabet, 200);
    const size_t min_length = 2 + rng() % 14;
    const std::vector<std::string> expected = ExtractedAtRunEnds(text, min_length);
    const std::vector<std::string> got = CarriedValues(text, min_length);
    for (const std::string& g : got) EXPECT_GE(g.size(), min_length);
    EXPECT_EQ(MatchedInOrder(got, expected), expected.size())
        << "text: [" << text << "] min " << min_length;
    // And nothing but what the walk offers when every length counts.
    std::vector<std::string> all_long;
    for (const std::string& v : CarriedValues(text, 1)) {
      if (v.size() >= min_length) all_long.push_back(v);
    }
    EXPECT_EQ(got, all_long) << "text: [" << text << "] min " << min_length;
  }
}

}  // namespace
}  // namespace doberman::internal
