// The C++ side of the Python module `rocesim` (python/module/rocesim/__init__.py
// wraps it; README "From Python"): reads a scenario through the same reader
// as `rocesim run` (a file, or a dict turned into YAML text named "<dict>", so
// that both are validated alike and fail with the same messages), runs it
// into a results directory with the GIL released (sim/run_to_directory.h),
// and exposes the sweep machinery of src/sweep/ (grid expansion, point
// names, validation, the resume record and sweep.csv) for rocesim.sweep.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "net/fabric_layout.h"
#include "scenario/scenario_reader.h"
#include "sim/partition.h"
#include "sim/run_to_directory.h"
#include "sweep/sweep_results.h"
#include "sweep/sweep_runner.h"
#include "sweep/sweep_spec.h"

namespace py = pybind11;

namespace rocesim {
namespace {

// A Python value as a YAML node: dicts, lists and tuples, str, bool, int
// (numpy's integers too, by __index__), float (numpy's are floats), None.
// `path` names the value in a TypeError ("traffic[0].size").
YAML::Node ToYaml(const py::handle& v, const std::string& path) {
  const auto where = [&] { return path.empty() ? std::string("scenario") : path; };
  if (v.is_none()) return YAML::Node(YAML::NodeType::Null);
  if (py::isinstance<py::bool_>(v)) return YAML::Node(v.cast<bool>() ? "true" : "false");
  if (py::isinstance<py::str>(v)) return YAML::Node(v.cast<std::string>());
  if (py::isinstance<py::float_>(v)) return YAML::Node(py::repr(v).cast<std::string>());
  if (py::isinstance<py::int_>(v) || py::hasattr(v, "__index__"))
    return YAML::Node(py::str(py::int_(py::reinterpret_borrow<py::object>(v))).cast<std::string>());
  if (py::isinstance<py::dict>(v)) {
    YAML::Node map(YAML::NodeType::Map);
    for (const auto& [key, value] : v.cast<py::dict>()) {
      if (!py::isinstance<py::str>(key))
        throw py::type_error(where() + ": keys must be strings, got " +
                             py::repr(key).cast<std::string>());
      const std::string k = key.cast<std::string>();
      map[k] = ToYaml(value, path.empty() ? k : path + "." + k);
    }
    return map;
  }
  if (py::isinstance<py::list>(v) || py::isinstance<py::tuple>(v)) {
    YAML::Node seq(YAML::NodeType::Sequence);
    size_t i = 0;
    for (const auto& item : v) seq.push_back(ToYaml(item, path + "[" + std::to_string(i++) + "]"));
    return seq;
  }
  if (py::hasattr(v, "tolist")) return ToYaml(v.attr("tolist")(), path);  // numpy arrays
  throw py::type_error(where() + ": cannot be given as " +
                       py::str(v.get_type().attr("__name__")).cast<std::string>() +
                       " (use dict, list, str, int, float, bool or None)");
}

// The scenario's YAML text from a dict with the structure of a scenario file.
std::string DictToYaml(const py::dict& d) {
  YAML::Emitter out;
  out << ToYaml(d, "");
  return std::string(out.c_str()) + "\n";
}

// The validated scenario: from a file (`is_text` false: `source` is its
// path) or from YAML text named `name` in messages.
Scenario Read(const std::string& source, bool is_text, const std::string& name,
              const std::vector<std::string>& overrides, std::optional<uint64_t> seed) {
  if (!is_text) return LoadScenario(source, overrides, seed);
  return ParseScenarioText(source, name, "", overrides, seed);
}

// Reads and runs a scenario into `dir` (existing and empty); true when the
// run was interrupted (partial results).
bool RunInto(const std::string& source, bool is_text, const std::string& name,
             const std::vector<std::string>& overrides, std::optional<uint64_t> seed,
             uint32_t threads, uint32_t partitions, const std::string& dir) {
  const Scenario scenario = Read(source, is_text, name, overrides, seed);
  py::gil_scoped_release no_gil;  // the simulation touches no Python object
  return RunToDirectory(scenario, threads, dir, nullptr, partitions).interrupted;
}

// A sweep as the command line reads it (src/sweep/sweep_spec.h), for
// rocesim.sweep: Python runs the points, this names and records them and
// writes the table.
class SweepPlan {
 public:
  SweepPlan(const std::string& text, const std::string& name, const std::string& base_dir)
      : spec_(sweep::ParseSweepText(text, name, base_dir)), points_(sweep::ExpandPoints(spec_)) {}

  void Validate() const { sweep::ValidatePoints(spec_, points_); }
  // Per point: (name, the --set arguments, {key: value label}).
  py::list Points() const {
    py::list out;
    for (const sweep::SweepPoint& p : points_) {
      py::dict labels;
      for (const sweep::Setting& s : p.settings) labels[py::str(s.key)] = s.label;
      out.append(py::make_tuple(p.name, sweep::OverrideArgs(spec_, p), labels));
    }
    return out;
  }
  bool Finished(const std::string& out_dir, size_t index) const {
    return sweep::ReadFinishedPoint(out_dir, spec_, At(index)).status == sweep::PointStatus::kOk;
  }
  void Record(const std::string& out_dir, size_t index) const {
    sweep::RecordFinishedPoint(out_dir, spec_, At(index));
  }
  // sweep.csv's text: finished points from their directories, `failed` ones
  // as failed, the rest not_run.
  std::string Csv(const std::string& out_dir, const std::vector<size_t>& failed) const {
    std::vector<sweep::PointOutcome> outcomes(points_.size());
    for (const sweep::SweepPoint& p : points_)
      outcomes[p.index] = sweep::ReadFinishedPoint(out_dir, spec_, p);
    for (size_t i : failed) outcomes.at(i).status = sweep::PointStatus::kFailed;
    return sweep::SweepCsv(spec_, points_, outcomes);
  }

 private:
  const sweep::SweepPoint& At(size_t index) const {
    if (index >= points_.size()) throw py::index_error("no sweep point " + std::to_string(index));
    return points_[index];
  }
  sweep::SweepSpec spec_;
  std::vector<sweep::SweepPoint> points_;
};

}  // namespace
}  // namespace rocesim

PYBIND11_MODULE(_core, m) {
  using namespace rocesim;
  m.doc() = "rocesim's C++ core; use the `rocesim` package (rocesim.run, rocesim.sweep)";
  // A bad scenario, sweep or fabric (the command line's exit status 2).
  static py::exception<ScenarioError> scenario_error(m, "ScenarioError", PyExc_ValueError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const ScenarioError& e) {
      scenario_error(e.what());
    } catch (const BuildError& e) {
      scenario_error(e.what());
    } catch (const PartitionError& e) {
      scenario_error(e.what());
    }
  });
  m.def("dict_to_yaml", &DictToYaml, py::arg("scenario"),
        "The YAML text of a scenario given as a dict");
  m.def(
      "check",
      [](const std::string& source, bool is_text, const std::string& name,
         const std::vector<std::string>& overrides,
         std::optional<uint64_t> seed) { Read(source, is_text, name, overrides, seed); },
      py::arg("source"), py::arg("is_text"), py::arg("name"), py::arg("overrides"), py::arg("seed"),
      "Reads and validates a scenario; raises ScenarioError");
  m.def("run_into", &RunInto, py::arg("source"), py::arg("is_text"), py::arg("name"),
        py::arg("overrides"), py::arg("seed"), py::arg("threads"), py::arg("partitions"),
        py::arg("dir"),
        "Runs a scenario into an empty directory (GIL released); True when interrupted");
  py::class_<SweepPlan>(m, "SweepPlan")
      .def(py::init<const std::string&, const std::string&, const std::string&>(), py::arg("text"),
           py::arg("name"), py::arg("base_dir"))
      .def("validate", &SweepPlan::Validate)
      .def("points", &SweepPlan::Points)
      .def("finished", &SweepPlan::Finished, py::arg("out_dir"), py::arg("index"))
      .def("record", &SweepPlan::Record, py::arg("out_dir"), py::arg("index"))
      .def("csv", &SweepPlan::Csv, py::arg("out_dir"), py::arg("failed"));
}
