// The `doberman` Python module (pybind11): load a signed pack once, decide hook payloads from any
// number of threads. It judges a payload exactly as `doberman-guard check` does (the same payload
// conversion and decision assembly, guard_output.h), so a Python host and the guard cannot
// disagree. Usage errors raise; anything that fails inside a decision answers at least AUTH, never
// PASS.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "doberman/doberman.h"
#include "guard_output.h"
#include "hook_payload.h"
#include "pack_loading.h"

namespace py = pybind11;

namespace {

using doberman::guard::Decision;
using doberman::guard::LoadPackWithKeys;
using doberman::guard::PackLoadResult;
using doberman::guard::ParsedPayload;

// A refused pack: the status name (`DOBERMAN_E_SIGNATURE`, ...) and the runtime's one-line reason.
class PackError : public std::runtime_error {
 public:
  PackError(std::string status, const std::string& message)
      : std::runtime_error(message), status_(std::move(status)) {}
  const std::string& status() const { return status_; }

 private:
  std::string status_;
};

const char* VerdictName(doberman_verdict v) { return doberman_verdict_name(v); }

struct PyDecision {
  std::string verdict, status;
  std::vector<std::string> reasons, rules, messages;
  py::list hits;
};

PyDecision ToPython(const Decision& d) {
  PyDecision out;
  out.verdict = VerdictName(d.verdict);
  out.status = d.status;
  out.reasons = d.reasons;
  out.rules = d.rules;
  out.messages = d.messages;
  for (const auto& h : d.hits) {
    py::dict hit;
    hit["rule"] = h.rule;
    hit["verdict"] = h.verdict;
    hit["field"] = h.field;
    hit["unit"] = h.unit;
    hit["start"] = h.start;
    hit["end"] = h.end;
    hit["fingerprint"] = h.fingerprint;
    hit["decoded"] = h.decoded;
    out.hits.append(std::move(hit));
  }
  return out;
}

// A loaded pack shared by every thread, with a pool of scratches (one per concurrent decision):
// a scratch is the only per-thread state the runtime has.
class Pack {
 public:
  Pack(const std::string& path, const std::vector<std::string>& pubkeys, const std::string& state) {
    PackLoadResult r;
    {
      py::gil_scoped_release unlocked;  // verifying and deserializing takes milliseconds
      r = LoadPackWithKeys(path, pubkeys, state, 0);
    }
    if (r.pack == nullptr) throw PackError(r.status, r.error);
    pack_ = r.pack;
  }
  Pack(const Pack&) = delete;
  Pack& operator=(const Pack&) = delete;
  ~Pack() {
    for (doberman_scratch* s : free_) doberman_scratch_free(s);
    doberman_pack_free(pack_);
  }

  // `payload`: a hook payload as a dict (or its JSON text), any host's events.
  PyDecision Decide(const py::object& payload) {
    std::string text;
    if (py::isinstance<py::str>(payload)) {
      text = payload.cast<std::string>();
    } else if (py::isinstance<py::dict>(payload)) {
      // json.dumps raises TypeError for values JSON cannot hold: a usage error.
      text = py::module_::import("json").attr("dumps")(payload).cast<std::string>();
    } else {
      throw py::type_error("decide() takes a hook payload: a dict or its JSON text");
    }
    Decision d;
    {
      py::gil_scoped_release unlocked;
      d = DecideText(text);
    }
    return ToPython(d);
  }

  py::dict Info() const {
    doberman_pack_info info{};
    info.struct_size = sizeof info;
    py::dict out;
    if (doberman_pack_get_info(pack_, &info) != DOBERMAN_OK) return out;
    out["name"] = info.name;
    out["version"] = info.version;
    out["revision"] = info.revision;
    out["created_unix"] = info.created_unix;
    out["expires_unix"] = info.expires_unix;
    out["rule_count"] = info.rule_count;
    out["pattern_count"] = info.pattern_count;
    out["hs_version"] = info.hs_version;
    out["platform"] = info.platform;
    return out;
  }

 private:
  Decision DecideText(const std::string& text) {
    Decision d;
    d.verdict = DOBERMAN_PASS;
    ParsedPayload payload;
    if (!doberman::guard::ParsePayloadText(text, doberman::guard::Host::kAny, &payload, &d))
      return d;  // raised to AUTH, naming the cause
    doberman_scratch* scratch = Acquire();
    if (scratch == nullptr) {
      d.status = "DOBERMAN_E_NO_MEMORY";
      d.Raise(DOBERMAN_AUTH, "error:no_memory", "cannot allocate scratch");
      return d;
    }
    d = doberman::guard::DecidePayload(pack_, scratch, payload);
    Release(scratch);
    return d;
  }

  doberman_scratch* Acquire() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!free_.empty()) {
        doberman_scratch* s = free_.back();
        free_.pop_back();
        return s;
      }
    }
    doberman_scratch* s = nullptr;
    return doberman_scratch_create(pack_, &s) == DOBERMAN_OK ? s : nullptr;
  }
  void Release(doberman_scratch* s) {
    std::lock_guard<std::mutex> lock(mutex_);
    free_.push_back(s);
  }

  doberman_pack* pack_ = nullptr;
  std::mutex mutex_;
  std::vector<doberman_scratch*> free_;
};

// `pubkey`: one key file or a list; None: $DOBERMAN_PUBKEY (':'-separated), as the guard reads it.
std::vector<std::string> PublicKeys(const py::object& pubkey) {
  std::vector<std::string> keys;
  if (pubkey.is_none()) {
    keys = doberman::guard::PublicKeysFromEnvironment();
  } else if (py::isinstance<py::str>(pubkey)) {
    keys.push_back(pubkey.cast<std::string>());
  } else if (py::isinstance<py::list>(pubkey) || py::isinstance<py::tuple>(pubkey)) {
    for (const py::handle item : pubkey) {
      if (!py::isinstance<py::str>(item)) throw py::type_error("pubkey: a list of key file paths");
      keys.push_back(item.cast<std::string>());
    }
  } else {
    throw py::type_error("pubkey: a key file path or a list of them");
  }
  if (keys.empty())
    throw py::value_error("no trusted public key: pass pubkey= or set DOBERMAN_PUBKEY");
  return keys;
}

}  // namespace

PYBIND11_MODULE(doberman, m) {
  m.doc() =
      "Doberman's runtime: load a signed guardrail pack and decide PASS, AUTH or BLOCK for an AI "
      "agent's hook payloads (tool calls, tool output, prompt turns).";
  m.attr("__version__") = doberman_runtime_version();
  m.attr("PASS") = "PASS";
  m.attr("AUTH") = "AUTH";
  m.attr("BLOCK") = "BLOCK";
  static py::exception<PackError> pack_error(m, "PackError");
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const PackError& e) {
      pack_error(e.what());
      PyObject *type, *value, *trace;
      PyErr_Fetch(&type, &value, &trace);
      PyErr_NormalizeException(&type, &value, &trace);
      if (value != nullptr) py::handle(value).attr("status") = e.status();
      PyErr_Restore(type, value, trace);
    }
  });

  py::class_<PyDecision>(m, "Decision",
                         "One decision: the verdict and why (never the matched text).")
      .def_readonly("verdict", &PyDecision::verdict, "'PASS', 'AUTH' or 'BLOCK'")
      .def_readonly("status", &PyDecision::status, "'DOBERMAN_OK' or the error that raised it")
      .def_readonly("reasons", &PyDecision::reasons, "reason codes; errors as 'error:...'")
      .def_readonly("rules", &PyDecision::rules, "ids of the rules that raised the verdict")
      .def_readonly("messages", &PyDecision::messages, "one human-readable line per rule")
      .def_readonly("hits", &PyDecision::hits,
                    "dicts: rule, verdict, field, unit, start, end, fingerprint, decoded")
      .def_property_readonly("allowed", [](const PyDecision& d) { return d.verdict == "PASS"; })
      .def("__repr__", [](const PyDecision& d) {
        std::string r = "<doberman.Decision " + d.verdict;
        for (const auto& rule : d.rules) r += " " + rule;
        return r + ">";
      });

  py::class_<Pack>(m, "Pack", "A verified, loaded pack. Share one across threads.")
      .def("decide", &Pack::Decide, py::arg("payload"),
           "Decide a hook payload (dict or JSON text, any host's events). Never raises for what "
           "the payload holds: a payload it cannot judge answers AUTH with the reason.")
      .def_property_readonly("info", &Pack::Info, "name, version, revision, rule_count, ...");

  m.def(
      "load",
      [](const std::string& path, const py::object& pubkey, const std::string& state) {
        return std::make_unique<Pack>(path, PublicKeys(pubkey), state);
      },
      py::arg("path"), py::arg("pubkey") = py::none(), py::arg("state") = "",
      "Load and verify a signed pack (signature first, then structure, databases, expiry and, "
      "with state=FILE, rollback). pubkey: a key file or a list of them (default "
      "$DOBERMAN_PUBKEY). Raises doberman.PackError (with .status) when the pack is refused.");
  m.def("runtime_version", &doberman_runtime_version,
        "The runtime's version, pack envelope versions, Hyperscan version and build type.");
}
