#include "workload/dependency_file.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <unordered_map>

#include "core/graph_cycle.h"
#include "core/text_fields.h"
#include "core/units.h"

namespace rocesim {

namespace {

// One flow as written, before its dependencies are resolved to indices.
struct Row {
  std::string where;  // "file:line" or "file: flows[i]"
  std::string id;
  FlowSpec spec;
  std::vector<std::string> depends_on;
};

[[noreturn]] void Fail(const std::string& where, std::string_view msg) {
  throw DependencyFileError(fmt::format("{}: {}", where, msg));
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

// A tag ends up in flows.csv and summary.json: UTF-8 only.
std::string TagField(const std::string& where, std::string_view text) {
  if (const size_t at = InvalidUtf8At(text); at != std::string_view::npos)
    Fail(where, fmt::format("tag: expected UTF-8 text, got the byte 0x{:02X} at position {}",
                            static_cast<unsigned>(static_cast<unsigned char>(text[at])), at + 1));
  return std::string(text);
}

// The 1-based line holding the byte at 1-based offset `byte` of `text`.
size_t LineAt(std::string_view text, size_t byte) {
  const size_t end = std::min(text.size(), byte > 0 ? byte - 1 : 0);
  return 1 + static_cast<size_t>(std::count(text.begin(), text.begin() + end, '\n'));
}

// The text between the first pair of single quotes in a library message, or "".
std::string_view QuotedToken(std::string_view message) {
  const size_t open = message.find('\'');
  if (open == std::string_view::npos) return {};
  const size_t close = message.find('\'', open + 1);
  if (close == std::string_view::npos) return {};
  return message.substr(open + 1, close - open - 1);
}

bool ValidId(std::string_view id) {
  return !id.empty() && id.find_first_of(",; \t") == std::string_view::npos;
}

// Field parsers shared by both formats; `what` names the field.
int HostField(const std::string& where, std::string_view what, std::string_view text, int hosts) {
  int64_t v = 0;
  if (!ParseInt64(text, v) || v < 0 || v >= hosts)
    Fail(where,
         fmt::format("{}: expected a host id from 0 to {}, got \"{}\"", what, hosts - 1, text));
  return static_cast<int>(v);
}
int64_t SizeField(const std::string& where, std::string_view text) {
  try {
    const int64_t v = ParseSize(text);
    if (v >= 1 && v <= kMaxFlowBytes) return v;
  } catch (const UnitError& e) {
    Fail(where, fmt::format("size: {}", e.what()));
  }
  Fail(where,
       fmt::format("size: expected from 1 byte to {} bytes, got \"{}\"", kMaxFlowBytes, text));
}
Time TimeField(const std::string& where, std::string_view what, std::string_view text) {
  try {
    const Time t = ParseTime(text);
    if (t >= 0) return t;
  } catch (const UnitError& e) {
    Fail(where, fmt::format("{}: {}", what, e.what()));
  }
  Fail(where, fmt::format("{}: expected a time >= 0, got \"{}\"", what, text));
}
int PriorityField(const std::string& where, std::string_view text) {
  int64_t v = 0;
  if (!ParseInt64(text, v) || v < 0 || v > 7)
    Fail(where, fmt::format("priority: expected 0-7, got \"{}\"", text));
  return static_cast<int>(v);
}

// Ids to indices, the source-host rule, and cycles.
std::vector<FlowSpec> Resolve(std::vector<Row> rows) {
  std::unordered_map<std::string, uint32_t> index;
  for (uint32_t i = 0; i < rows.size(); ++i) {
    const auto [it, fresh] = index.emplace(rows[i].id, i);
    if (!fresh)
      Fail(rows[i].where,
           fmt::format("id \"{}\" is already used at {}", rows[i].id, rows[it->second].where));
  }
  for (Row& r : rows) {
    for (const std::string& d : r.depends_on) {
      const auto it = index.find(d);
      if (it == index.end()) Fail(r.where, fmt::format("depends_on: no flow has id \"{}\"", d));
      const FlowSpec& p = rows[it->second].spec;
      if (p.src != r.spec.src && p.dst != r.spec.src)
        Fail(r.where,
             fmt::format("depends_on: flow \"{}\" ({} -> {}) neither starts nor ends at host {}, "
                         "the source of \"{}\"; a flow can only wait for what its source host "
                         "sends or receives",
                         d, p.src, p.dst, r.spec.src, r.id));
      r.spec.after.push_back(it->second);
    }
  }
  // No cycle. (Each row's predecessors go in last to first, so that the
  // cycle named goes through the first one listed that is on it.)
  const size_t n = rows.size();
  std::vector<std::pair<uint32_t, uint32_t>> edges;
  for (uint32_t i = 0; i < n; ++i)
    for (auto a = rows[i].spec.after.rbegin(); a != rows[i].spec.after.rend(); ++a)
      edges.emplace_back(*a, i);
  if (const std::vector<uint32_t> cycle = FindCycle(static_cast<uint32_t>(n), edges);
      !cycle.empty()) {
    std::vector<std::string> names;
    for (uint32_t k : cycle) names.push_back(fmt::format("\"{}\" ({})", rows[k].id, rows[k].where));
    throw DependencyFileError(fmt::format("the dependencies have a cycle: {} waits for {}",
                                          fmt::join(names, " waits for "), names.front()));
  }
  std::vector<FlowSpec> out;
  out.reserve(n);
  for (Row& r : rows) out.push_back(std::move(r.spec));
  return out;
}

}  // namespace

std::vector<FlowSpec> ParseDependencyCsv(std::string_view text, const std::string& name, int hosts,
                                         int priority, const std::string& tag) {
  std::vector<Row> rows;
  std::vector<std::string> columns;
  int line_no = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    const size_t end = std::min(text.find('\n', pos), text.size());
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (const size_t hash = line.find('#'); hash != std::string_view::npos)
      line = line.substr(0, hash);
    if (Trim(line).empty()) continue;
    const std::string where = fmt::format("{}:{}", name, line_no);
    std::vector<std::string_view> cells;
    for (size_t at = 0;;) {
      const size_t comma = line.find(',', at);
      cells.push_back(Trim(line.substr(at, comma - at)));
      if (comma == std::string_view::npos) break;
      at = comma + 1;
    }
    if (columns.empty()) {
      static const std::vector<std::string_view> kKnown = {
          "id", "src", "dst", "size", "depends_on", "delay", "start", "tag", "priority"};
      for (std::string_view c : cells) {
        if (std::find(kKnown.begin(), kKnown.end(), c) == kKnown.end())
          Fail(where,
               fmt::format("unknown column \"{}\"; columns are {}", c, fmt::join(kKnown, ", ")));
        if (std::find(columns.begin(), columns.end(), c) != columns.end())
          Fail(where, fmt::format("column \"{}\" appears twice", c));
        columns.emplace_back(c);
      }
      for (std::string_view need : {"id", "src", "dst", "size"})
        if (std::find(columns.begin(), columns.end(), need) == columns.end())
          Fail(where,
               fmt::format("the header lacks column \"{}\" (needed: id, src, dst, size)", need));
      continue;
    }
    if (cells.size() != columns.size())
      Fail(where, fmt::format("expected {} fields ({}), got {}", columns.size(),
                              fmt::join(columns, ","), cells.size()));
    Row r;
    r.where = where;
    r.spec.priority = priority;
    r.spec.tag = tag;
    for (size_t c = 0; c < columns.size(); ++c) {
      const std::string& col = columns[c];
      const std::string_view v = cells[c];
      if (col == "id") {
        if (!ValidId(v))
          Fail(where, fmt::format("id: expected a name without ',', ';' or spaces, got \"{}\"", v));
        r.id = v;
      } else if (col == "src") {
        r.spec.src = HostField(where, "src", v, hosts);
      } else if (col == "dst") {
        r.spec.dst = HostField(where, "dst", v, hosts);
      } else if (col == "size") {
        r.spec.size_bytes = SizeField(where, v);
      } else if (col == "depends_on") {
        for (std::string_view d : SplitFields(v))
          for (size_t at = 0;;) {
            const size_t semi = d.find(';', at);
            const std::string_view one = d.substr(at, semi - at);
            if (!one.empty()) r.depends_on.emplace_back(one);
            if (semi == std::string_view::npos) break;
            at = semi + 1;
          }
      } else if (col == "delay") {
        if (!v.empty()) r.spec.delay = TimeField(where, "delay", v);
      } else if (col == "start") {
        if (!v.empty()) r.spec.start = TimeField(where, "start", v);
      } else if (col == "tag") {
        if (!v.empty()) r.spec.tag = TagField(where, v);
      } else if (col == "priority") {
        if (!v.empty()) r.spec.priority = PriorityField(where, v);
      }
    }
    if (r.spec.src == r.spec.dst)
      Fail(where, fmt::format("dst: expected a host other than src ({})", r.spec.src));
    rows.push_back(std::move(r));
  }
  if (columns.empty())
    Fail(name, "empty file: expected a header line like id,src,dst,size,depends_on,delay");
  if (rows.empty()) Fail(name, "no flows after the header");
  return Resolve(std::move(rows));
}

std::vector<FlowSpec> ParseDependencyJson(std::string_view text, const std::string& name, int hosts,
                                          int priority, const std::string& tag) {
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    Fail(fmt::format("{}:{}", name, LineAt(text, e.byte)),
         fmt::format("not valid JSON (byte {}): expected {{\"flows\": [...]}}", e.byte));
  } catch (const nlohmann::json::exception& e) {
    // A number beyond a double (out_of_range.406) names only the token; find
    // where it was written so the error points at the line.
    const std::string_view token = QuotedToken(e.what());
    const size_t at = token.empty() ? std::string_view::npos : text.find(token);
    const std::string where =
        at == std::string_view::npos ? name : fmt::format("{}:{}", name, LineAt(text, at + 1));
    Fail(where, token.empty() ? std::string("not valid JSON: a value out of range")
                              : fmt::format("{}: a number beyond a double's range", token));
  }
  if (!doc.is_object() || !doc.contains("flows") || !doc["flows"].is_array())
    Fail(name, "expected an object {\"flows\": [...]}");
  std::vector<Row> rows;
  const nlohmann::json& flows = doc["flows"];
  // A field as text: strings as they are, numbers as written.
  auto text_of = [](const nlohmann::json& v) {
    return v.is_string() ? v.get<std::string>() : v.dump();
  };
  for (size_t i = 0; i < flows.size(); ++i) {
    const nlohmann::json& f = flows[i];
    const std::string where = fmt::format("{}: flows[{}]", name, i);
    if (!f.is_object()) Fail(where, "expected an object with id, src, dst, size");
    static const std::vector<std::string_view> kKnown = {
        "id", "src", "dst", "size", "depends_on", "delay", "start", "tag", "priority"};
    for (const auto& [key, value] : f.items())
      if (std::find(kKnown.begin(), kKnown.end(), key) == kKnown.end())
        Fail(where,
             fmt::format("unknown field \"{}\"; fields are {}", key, fmt::join(kKnown, ", ")));
    for (const char* need : {"id", "src", "dst", "size"})
      if (!f.contains(need)) Fail(where, fmt::format("missing field \"{}\"", need));
    for (const char* scalar : {"id", "src", "dst", "size", "delay", "start", "tag", "priority"})
      if (f.contains(scalar) && !f[scalar].is_primitive())
        Fail(where, fmt::format("{}: expected a number or a string", scalar));
    Row r;
    r.where = where;
    r.id = text_of(f["id"]);
    if (!ValidId(r.id))
      Fail(where, fmt::format("id: expected a name without ',', ';' or spaces, got \"{}\"", r.id));
    r.spec.src = HostField(where, "src", text_of(f["src"]), hosts);
    r.spec.dst = HostField(where, "dst", text_of(f["dst"]), hosts);
    if (r.spec.src == r.spec.dst)
      Fail(where, fmt::format("dst: expected a host other than src ({})", r.spec.src));
    r.spec.size_bytes = SizeField(where, text_of(f["size"]));
    r.spec.priority = priority;
    r.spec.tag = tag;
    if (f.contains("delay")) r.spec.delay = TimeField(where, "delay", text_of(f["delay"]));
    if (f.contains("start")) r.spec.start = TimeField(where, "start", text_of(f["start"]));
    if (f.contains("tag")) r.spec.tag = TagField(where, text_of(f["tag"]));
    if (f.contains("priority")) r.spec.priority = PriorityField(where, text_of(f["priority"]));
    if (f.contains("depends_on")) {
      const nlohmann::json& d = f["depends_on"];
      if (!d.is_array()) Fail(where, "depends_on: expected a list of ids");
      for (const nlohmann::json& id : d) r.depends_on.push_back(text_of(id));
    }
    rows.push_back(std::move(r));
  }
  if (rows.empty()) Fail(name, "\"flows\" is empty");
  return Resolve(std::move(rows));
}

std::vector<FlowSpec> ReadDependencyFile(const std::string& path, int hosts, int priority,
                                         const std::string& tag) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw DependencyFileError(
        fmt::format("cannot open dependency file '{}': {}", path, std::strerror(errno)));
  std::ostringstream text;
  text << in.rdbuf();
  const bool json = path.size() >= 5 && path.compare(path.size() - 5, 5, ".json") == 0;
  return json ? ParseDependencyJson(text.str(), path, hosts, priority, tag)
              : ParseDependencyCsv(text.str(), path, hosts, priority, tag);
}

}  // namespace rocesim
