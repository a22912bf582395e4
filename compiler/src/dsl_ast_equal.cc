// Field-by-field comparison of two ASTs, ignoring locations (see dsl_ast_equal.h).
#include "dsl_ast_equal.h"

#include <functional>

namespace doberman::compiler {
namespace {

class Comparer {
 public:
  explicit Comparer(std::string* difference) : difference_(difference) {}

  bool Files(const ParsedFile& a, const ParsedFile& b) {
    if (a.index() != b.index()) return Fail("", "different kinds of file");
    if (const auto* m = std::get_if<ManifestAst>(&a)) return Manifest(*m, std::get<ManifestAst>(b));
    if (const auto* r = std::get_if<RuleFileAst>(&a)) return RuleFile(*r, std::get<RuleFileAst>(b));
    return true;
  }

 private:
  bool Fail(const std::string& path, const std::string& what) {
    if (difference_ != nullptr) *difference_ = path.empty() ? what : path + ": " + what;
    return false;
  }

  static std::string Show(const Text& t) {
    return t.present() ? "'" + t.value + "'" : std::string("absent");
  }

  bool T(const std::string& path, const Text& a, const Text& b) {
    if (a.present() != b.present() || (a.present() && a.value != b.value)) {
      return Fail(path, Show(a) + " vs " + Show(b));
    }
    return true;
  }

  template <typename X>
  bool Each(const std::string& path, const std::vector<X>& a, const std::vector<X>& b,
            const std::function<bool(const std::string&, const X&, const X&)>& f) {
    if (a.size() != b.size()) {
      return Fail(path, std::to_string(a.size()) + " vs " + std::to_string(b.size()) + " items");
    }
    for (size_t i = 0; i < a.size(); ++i) {
      if (!f(path + "[" + std::to_string(i) + "]", a[i], b[i])) return false;
    }
    return true;
  }

  bool Texts(const std::string& path, const std::vector<Text>& a, const std::vector<Text>& b) {
    return Each<Text>(
        path, a, b, [&](const std::string& p, const Text& x, const Text& y) { return T(p, x, y); });
  }

  bool Call(const std::string& p, const CallAst& a, const CallAst& b) {
    return T(p + ".tool", a.tool, b.tool) && T(p + ".command", a.command, b.command) &&
           T(p + ".path", a.path, b.path) && T(p + ".cwd", a.cwd, b.cwd) &&
           T(p + ".content", a.content, b.content) && T(p + ".url", a.url, b.url) &&
           T(p + ".prompt", a.prompt, b.prompt) && T(p + ".origin", a.origin, b.origin) &&
           Texts(p + ".args", a.args, b.args);
  }

  bool Rule(const std::string& p, const RuleAst& a, const RuleAst& b) {
    if (!(T(p + ".id", a.id, b.id) && T(p + ".family", a.family, b.family) &&
          T(p + ".verdict", a.verdict, b.verdict) && T(p + ".tier", a.tier, b.tier) &&
          T(p + ".reason", a.reason, b.reason) && T(p + ".message", a.message, b.message) &&
          T(p + ".when", a.when, b.when) && T(p + ".mention", a.mention_cap, b.mention_cap) &&
          T(p + ".mention_marker", a.mention_marker, b.mention_marker) &&
          T(p + ".decode", a.decode, b.decode) &&
          T(p + ".description", a.description, b.description) &&
          Texts(p + ".scopes", a.scopes, b.scopes) && Texts(p + ".tags", a.tags, b.tags) &&
          Texts(p + ".origins", a.origins, b.origins))) {
      return false;
    }
    if (!Each<PatternAst>(p + ".patterns", a.patterns, b.patterns,
                          [&](const std::string& q, const PatternAst& x, const PatternAst& y) {
                            if (x.role != y.role) return Fail(q + ".role", "different roles");
                            return T(q + ".regex", x.regex, y.regex) &&
                                   Texts(q + ".flags", x.flags, y.flags);
                          })) {
      return false;
    }
    const ValidatorsAst& va = a.validators;
    const ValidatorsAst& vb = b.validators;
    if (va.present != vb.present) return Fail(p + ".validators", "present in one only");
    if (!(T(p + ".validators.min_entropy", va.min_entropy, vb.min_entropy) &&
          T(p + ".validators.min_length", va.min_length, vb.min_length) &&
          T(p + ".validators.placeholder", va.placeholder, vb.placeholder) &&
          T(p + ".validators.exempt_hashes", va.exempt_hashes, vb.exempt_hashes) &&
          T(p + ".validators.exempt_identifiers", va.exempt_identifiers, vb.exempt_identifiers))) {
      return false;
    }
    return Each<ExampleAst>(p + ".examples", a.examples, b.examples,
                            [&](const std::string& q, const ExampleAst& x, const ExampleAst& y) {
                              if (x.expect_match != y.expect_match) return Fail(q, "match vs pass");
                              if (x.text.has_value() != y.text.has_value()) {
                                return Fail(q, "text vs call");
                              }
                              if (x.text) return T(q + ".text", *x.text, *y.text);
                              return Call(q + ".call", x.call, y.call);
                            });
  }

  bool Shell(const std::string& p, const ShellAst& a, const ShellAst& b) {
    return Each<WrapperAst>(p + ".wrappers", a.wrappers, b.wrappers,
                            [&](const std::string& q, const WrapperAst& x, const WrapperAst& y) {
                              return T(q + ".name", x.name, y.name) &&
                                     T(q + ".positional", x.positional, y.positional) &&
                                     Texts(q + ".value_options", x.value_options, y.value_options);
                            }) &&
           Texts(p + ".shells", a.shells, b.shells) &&
           Texts(p + ".split_flags", a.split_flags, b.split_flags) &&
           Texts(p + ".stdin_programs", a.stdin_programs, b.stdin_programs) &&
           Texts(p + ".runners", a.runners, b.runners) &&
           Each<AliasAst>(p + ".aliases", a.aliases, b.aliases,
                          [&](const std::string& q, const AliasAst& x, const AliasAst& y) {
                            return T(q + ".command", x.command, y.command) &&
                                   T(q + ".from", x.from, y.from) && T(q + ".to", x.to, y.to);
                          });
  }

  bool Defines(const std::vector<FragmentAst>& a, const std::vector<FragmentAst>& b) {
    return Each<FragmentAst>("define", a, b,
                             [&](const std::string& q, const FragmentAst& x, const FragmentAst& y) {
                               return T(q + ".name", x.name, y.name) &&
                                      T(q + ".regex", x.pattern.regex, y.pattern.regex) &&
                                      Texts(q + ".flags", x.pattern.flags, y.pattern.flags);
                             });
  }

  bool RuleFile(const RuleFileAst& a, const RuleFileAst& b) {
    return Defines(a.fragments, b.fragments) &&
           Each<ShellAst>("shell", a.shell, b.shell,
                          [&](const std::string& q, const ShellAst& x, const ShellAst& y) {
                            return Shell(q, x, y);
                          }) &&
           Each<RuleAst>("rules", a.rules, b.rules,
                         [&](const std::string& q, const RuleAst& x, const RuleAst& y) {
                           return Rule(q, x, y);
                         });
  }

  bool Manifest(const ManifestAst& a, const ManifestAst& b) {
    return T("pack.name", a.name, b.name) && T("pack.version", a.version, b.version) &&
           T("pack.revision", a.revision, b.revision) &&
           T("pack.description", a.description, b.description) &&
           T("pack.expires", a.expires, b.expires) && Texts("include", a.includes, b.includes) &&
           Texts("exclude_rules", a.exclude_rules, b.exclude_rules) &&
           Texts("platforms", a.platforms, b.platforms) &&
           Each<LimitAst>("limits", a.limits, b.limits,
                          [&](const std::string& q, const LimitAst& x, const LimitAst& y) {
                            return T(q + ".name", x.name, y.name) &&
                                   T(q + ".value", x.value, y.value);
                          }) &&
           Defines(a.fragments, b.fragments);
  }

  std::string* difference_;
};

}  // namespace

bool AstEqual(const ParsedFile& a, const ParsedFile& b, std::string* difference) {
  return Comparer(difference).Files(a, b);
}

}  // namespace doberman::compiler
