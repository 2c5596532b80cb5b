#include "spec_table.hpp"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

namespace validation {

namespace {

[[noreturn]] void bad(const std::string& path, const std::string& what) {
  throw std::runtime_error(path + ": " + what);
}

std::string text(const nlohmann::json& j, const char* key, const std::string& where,
                 const std::string& path, bool required = true) {
  if (!j.contains(key)) {
    if (required) bad(path, where + ": missing \"" + key + "\"");
    return "";
  }
  if (!j.at(key).is_string()) bad(path, where + ": \"" + key + "\" must be a string");
  return j.at(key).get<std::string>();
}

double number(const nlohmann::json& j, const char* key, const std::string& where,
              const std::string& path) {
  if (!j.contains(key) || !j.at(key).is_number())
    bad(path, where + ": \"" + key + "\" must be a number");
  return j.at(key).get<double>();
}

std::string ratio_text(double r) {
  if (std::isnan(r)) return "n/a";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", r);
  return buf;
}

// Markdown table cells must not contain a bare '|'.
std::string cell(const std::string& s) {
  std::string out;
  for (char c : s)
    out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out;
}

}  // namespace

SpecFile load_specs(const std::string& path) {
  std::ifstream in(path);
  if (!in) bad(path, "cannot open");
  nlohmann::json j;
  try {
    in >> j;
  } catch (const nlohmann::json::exception& e) {
    bad(path, std::string("not valid JSON: ") + e.what());
  }
  SpecFile f;
  for (const auto& [key, p] : j.at("pages").items())
    f.pages[key] = Page{text(p, "title", "page " + key, path), text(p, "url", "page " + key, path)};
  for (const auto& s : j.at("sections"))
    f.sections.push_back(s.get<std::string>());
  std::set<std::string> ids;
  for (const auto& r : j.at("specs")) {
    Spec s;
    s.id = text(r, "id", "a spec", path);
    const std::string where = "spec " + s.id;
    if (!ids.insert(s.id).second) bad(path, where + ": duplicate id");
    s.section = text(r, "section", where, path);
    s.target = text(r, "target", where, path);
    s.quantity = text(r, "quantity", where, path);
    s.page = text(r, "page", where, path);
    s.published = number(r, "published", where, path);
    s.unit = text(r, "unit", where, path);
    s.scale = r.contains("scale") ? number(r, "scale", where, path) : 1.0;
    s.measure = text(r, "measure", where, path);
    s.args = r.value("args", nlohmann::json::object());
    s.situation = text(r, "situation", where, path);
    s.note = text(r, "note", where, path, false);
    const auto& band = r.at("band");
    if (!band.is_array() || band.size() != 2) bad(path, where + ": band must be [lo, hi]");
    s.band_lo = band[0].get<double>();
    s.band_hi = band[1].get<double>();
    if (!(s.band_lo <= s.band_hi)) bad(path, where + ": band lo exceeds hi");
    if (s.published == 0) bad(path, where + ": published must not be 0 (it divides)");
    if (s.scale <= 0) bad(path, where + ": scale must be positive");
    if (!f.pages.count(s.page)) bad(path, where + ": unknown page \"" + s.page + "\"");
    bool known_section = false;
    for (const auto& sec : f.sections)
      known_section = known_section || sec == s.section;
    if (!known_section) bad(path, where + ": unknown section \"" + s.section + "\"");
    f.specs.push_back(std::move(s));
  }
  for (const char* list : {"awaiting_dma_rework", "awaiting_model_fix"})
    for (const auto& id : j.at(list)) {
      const std::string name = id.get<std::string>();
      if (!ids.count(name)) bad(path, std::string(list) + ": unknown spec id \"" + name + "\"");
      if (!f.expected_failures.emplace(name, list).second)
        bad(path, "spec " + name + " is on two expected-failure lists");
    }
  for (const auto& r : j.at("not_modelled")) {
    NotModelled n;
    n.page = text(r, "page", "a not_modelled entry", path);
    if (!f.pages.count(n.page)) bad(path, "not_modelled: unknown page \"" + n.page + "\"");
    n.quantity = text(r, "quantity", "not_modelled", path);
    n.published = text(r, "published", "not_modelled", path);
    n.why = text(r, "why", "not_modelled", path);
    f.not_modelled.push_back(std::move(n));
  }
  return f;
}

Outcome evaluate(const SpecFile& file, const Spec& spec, double measured_base_units) {
  Outcome o;
  o.measured = measured_base_units / spec.scale;
  o.ratio = o.measured / spec.published;
  // The band is compared after rounding the ratio to the 6th decimal, so that a ratio the
  // doc shows as in band is in band (times are whole picoseconds, not exact decimals).
  const double r = std::round(o.ratio * 1e6) / 1e6;
  const bool in_band = !std::isnan(r) && r >= spec.band_lo && r <= spec.band_hi;
  auto listed = file.expected_failures.find(spec.id);
  if (listed != file.expected_failures.end()) o.list = listed->second;
  if (in_band)
    o.status = o.list.empty() ? Status::ok : Status::passes_but_listed;
  else
    o.status = o.list.empty() ? Status::out_of_band : Status::awaiting;
  return o;
}

std::string format_number(double v) {
  if (std::isnan(v)) return "n/a";
  if (std::fabs(v) < 1e15 && v == std::floor(v)) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.0f", v);
    return buf;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

std::string render_tables(const SpecFile& file, const std::map<std::string, Outcome>& outcomes) {
  std::ostringstream out;
  out << "\n";
  for (const auto& section : file.sections) {
    std::vector<const Spec*> rows;
    for (const auto& s : file.specs)
      if (s.section == section) rows.push_back(&s);
    if (rows.empty()) continue;
    out << "### " << section << "\n\n";
    out << "| id | published number | page | published | neuronsim | ratio | band | status |\n";
    out << "|---|---|---|---|---|---|---|---|\n";
    std::vector<std::string> notes;
    for (const Spec* s : rows) {
      const Outcome& o = outcomes.at(s->id);
      const Page& page = file.pages.at(s->page);
      std::string status;  // the page is a reference link, defined after the tables
      switch (o.status) {
        case Status::ok:
          status = s->note.empty() ? "ok" : "ok, kept";
          break;
        case Status::out_of_band:
          status = "**FAILS**";
          break;
        case Status::awaiting:
          status = o.list == "awaiting_dma_rework" ? "awaiting DMA rework" : "awaiting model fix";
          break;
        case Status::passes_but_listed:
          status = "**passes: take off " + o.list + "**";
          break;
      }
      if (!s->note.empty()) {
        notes.push_back(s->id + ": " + s->note);
        status += " (note " + std::to_string(notes.size()) + ")";
      }
      out << "| `" << s->id << "` | " << cell(s->quantity) << "; measured: " << cell(s->situation)
          << " | [" << cell(page.title) << "][" << s->page << "] | " << format_number(s->published)
          << " " << s->unit << " | " << format_number(o.measured) << " " << s->unit << " | "
          << ratio_text(o.ratio) << " | " << format_number(s->band_lo) << " to "
          << format_number(s->band_hi) << " | " << status << " |\n";
    }
    if (!notes.empty()) {
      out << "\nNotes:\n\n";
      for (std::size_t i = 0; i < notes.size(); ++i)
        out << i + 1 << ". " << notes[i] << "\n";
    }
    out << "\n";
  }

  for (const char* list : {"awaiting_dma_rework", "awaiting_model_fix"}) {
    out << "### Expected to fail for now: `" << list << "`\n\n";
    bool any = false;
    for (const auto& s : file.specs) {
      auto it = file.expected_failures.find(s.id);
      if (it == file.expected_failures.end() || it->second != list) continue;
      const Outcome& o = outcomes.at(s.id);
      out << "- `" << s.id << "`: ratio " << ratio_text(o.ratio) << ", band "
          << format_number(s.band_lo) << " to " << format_number(s.band_hi) << "\n";
      any = true;
    }
    if (!any) out << "(empty)\n";
    out << "\n";
  }

  out << "### Published numbers neuronsim does not model\n\n";
  out << "| published number | page | value | why not measured |\n|---|---|---|---|\n";
  for (const auto& n : file.not_modelled) {
    const Page& page = file.pages.at(n.page);
    out << "| " << cell(n.quantity) << " | [" << cell(page.title) << "][" << n.page << "] | "
        << cell(n.published) << " | " << cell(n.why) << " |\n";
  }
  // The pages, once, as reference links: the tables name them by key.
  out << "\n";
  for (const auto& [key, page] : file.pages)
    out << "[" << key << "]: " << page.url << "\n";
  out << "\n";
  return out.str();
}

std::string splice(const std::string& doc, const std::string& generated) {
  const auto begin = doc.find(kBeginMarker);
  const auto end = doc.find(kEndMarker);
  if (begin == std::string::npos || end == std::string::npos || end < begin)
    throw std::runtime_error(std::string("the doc lacks the markers ") + kBeginMarker + " and " +
                             kEndMarker);
  const auto body = begin + std::string(kBeginMarker).size();
  return doc.substr(0, body) + "\n" + generated + doc.substr(end);
}

}  // namespace validation
