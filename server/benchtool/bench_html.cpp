#include "server/benchtool/bench_html.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace wafer::bench {
namespace {

const char* const kColors[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"};
const char* color(size_t i) { return kColors[i % (sizeof kColors / sizeof kColors[0])]; }

std::string esc(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '<') o += "&lt;";
    else if (c == '>') o += "&gt;";
    else if (c == '&') o += "&amp;";
    else if (c == '"') o += "&quot;";
    else o += c;
  }
  return o;
}

std::string num(double v, int decimals = 1) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

bool answered(const RequestRecord& r) { return r.outcome == "shown" || r.outcome == "empty"; }

// A "nice" axis end at or above v (1, 2, 5 times a power of ten).
double nice_ceiling(double v) {
  if (v <= 0) return 1;
  double p = std::pow(10, std::floor(std::log10(v)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * p >= v) return m * p;
  return 10 * p;
}

constexpr int kW = 760, kH = 280, kLeft = 56, kBottom = 36, kTop = 16, kRight = 16;

// Tick divisions for an axis ending at a nice value: 5 for 1 and 5 times a power of ten,
// 4 for 2 (so the labels are round numbers).
int divisions(double nice_max) {
  double lead = nice_max / std::pow(10, std::floor(std::log10(nice_max)));
  return std::abs(lead - 2) < 1e-9 ? 4 : 5;
}

std::string label(double v) { return num(v, v == std::floor(v) ? 0 : 1); }

std::string axes(double x_max, const std::string& x_label, double y_max, const std::string& y_label) {
  std::string s;
  const int pw = kW - kLeft - kRight, ph = kH - kTop - kBottom;
  s += "<line x1='" + std::to_string(kLeft) + "' y1='" + std::to_string(kTop + ph) + "' x2='" + std::to_string(kLeft + pw) +
       "' y2='" + std::to_string(kTop + ph) + "' stroke='#333'/>";
  s += "<line x1='" + std::to_string(kLeft) + "' y1='" + std::to_string(kTop) + "' x2='" + std::to_string(kLeft) + "' y2='" +
       std::to_string(kTop + ph) + "' stroke='#333'/>";
  const int nx = divisions(x_max), ny = divisions(y_max);
  for (int i = 0; i <= nx; ++i)
    s += "<text x='" + num(kLeft + pw * i / static_cast<double>(nx), 0) + "' y='" + std::to_string(kTop + ph + 14) +
         "' font-size='11' text-anchor='middle'>" + label(x_max * i / nx) + "</text>";
  for (int i = 0; i <= ny; ++i) {
    double fy = kTop + ph - ph * i / static_cast<double>(ny);
    s += "<text x='" + std::to_string(kLeft - 4) + "' y='" + num(fy + 4, 0) + "' font-size='11' text-anchor='end'>" +
         label(y_max * i / ny) + "</text>";
    if (i) s += "<line x1='" + std::to_string(kLeft) + "' y1='" + num(fy, 0) + "' x2='" + std::to_string(kLeft + pw) +
                "' y2='" + num(fy, 0) + "' stroke='#eee'/>";
  }
  s += "<text x='" + std::to_string(kLeft + pw / 2) + "' y='" + std::to_string(kH - 4) +
       "' font-size='12' text-anchor='middle'>" + esc(x_label) + "</text>";
  s += "<text x='12' y='" + std::to_string(kTop + ph / 2) + "' font-size='12' text-anchor='middle' transform='rotate(-90 12 " +
       std::to_string(kTop + ph / 2) + ")'>" + esc(y_label) + "</text>";
  return s;
}

// Histogram of one latency per run (bars of the runs side by side in each bin).
std::string histogram(const std::vector<RunReport>& runs, bool first_text, const std::string& id) {
  const int bins = 30;
  double top = 0;
  for (const auto& r : runs) top = std::max(top, first_text ? r.summary.first_text_ms.p99 : r.summary.final_ms.p99);
  const double x_max = nice_ceiling(top * 1.05);
  std::vector<std::vector<int>> counts(runs.size(), std::vector<int>(bins, 0));
  int y_top = 1;
  for (size_t k = 0; k < runs.size(); ++k)
    for (const RequestRecord& q : runs[k].requests) {
      double v = first_text ? q.first_text_ms : q.final_ms;
      if (!answered(q) || v < 0) continue;
      int b = std::min(bins - 1, static_cast<int>(v / x_max * bins));
      y_top = std::max(y_top, ++counts[k][static_cast<size_t>(b)]);
    }
  const double y_max = nice_ceiling(y_top);
  const int pw = kW - kLeft - kRight, ph = kH - kTop - kBottom;
  std::string s = "<svg id='" + id + "' class='plot histogram' xmlns='http://www.w3.org/2000/svg' width='" +
                  std::to_string(kW) + "' height='" + std::to_string(kH) + "'>";
  s += axes(x_max, first_text ? "keystroke to first text (ms)" : "keystroke to final result (ms)", y_max, "requests");
  const double bw = static_cast<double>(pw) / bins / static_cast<double>(runs.size());
  for (size_t k = 0; k < runs.size(); ++k)
    for (int b = 0; b < bins; ++b) {
      int c = counts[k][static_cast<size_t>(b)];
      if (!c) continue;
      double h = ph * c / y_max;
      double x = kLeft + static_cast<double>(pw) * b / bins + bw * static_cast<double>(k);
      s += "<rect class='bar' x='" + num(x, 2) + "' y='" + num(kTop + ph - h, 2) + "' width='" + num(std::max(1.0, bw - 1), 2) +
           "' height='" + num(h, 2) + "' fill='" + color(k) + "'><title>" + std::to_string(c) + "</title></rect>";
    }
  // p50 / p90 / p99 of each run as dashed lines.
  for (size_t k = 0; k < runs.size(); ++k) {
    const Percentiles& p = first_text ? runs[k].summary.first_text_ms : runs[k].summary.final_ms;
    if (!p.count) continue;
    for (auto [name, v] : {std::pair{"p50", p.p50}, std::pair{"p90", p.p90}, std::pair{"p99", p.p99}}) {
      double x = kLeft + pw * std::min(1.0, v / x_max);
      s += "<line class='marker' x1='" + num(x, 2) + "' y1='" + std::to_string(kTop) + "' x2='" + num(x, 2) + "' y2='" +
           std::to_string(kTop + ph) + "' stroke='" + color(k) + "' stroke-dasharray='4 3'/>";
      s += "<text x='" + num(x + 2, 2) + "' y='" + std::to_string(kTop + 10 + 12 * static_cast<int>(k)) + "' font-size='10' fill='" +
           color(k) + "'>" + name + "</text>";
    }
  }
  return s + "</svg>";
}

// Final latency of every answered request against the time of its keystroke.
std::string timeline(const std::vector<RunReport>& runs) {
  double t_max = 0, y_top = 0;
  for (const auto& r : runs)
    for (const RequestRecord& q : r.requests)
      if (answered(q)) {
        t_max = std::max(t_max, q.at_ms / 1000);
        y_top = std::max(y_top, q.final_ms);
      }
  const double x_max = nice_ceiling(t_max), y_max = nice_ceiling(y_top * 1.05);
  const int pw = kW - kLeft - kRight, ph = kH - kTop - kBottom;
  std::string s = "<svg id='timeline' class='plot timeline' xmlns='http://www.w3.org/2000/svg' width='" + std::to_string(kW) +
                  "' height='" + std::to_string(kH) + "'>";
  s += axes(x_max, "time in the replay (s)", y_max, "keystroke to final (ms)");
  for (size_t k = 0; k < runs.size(); ++k)
    for (const RequestRecord& q : runs[k].requests) {
      if (!answered(q)) continue;
      double x = kLeft + pw * (q.at_ms / 1000) / x_max, y = kTop + ph - ph * q.final_ms / y_max;
      s += "<circle class='point' cx='" + num(x, 2) + "' cy='" + num(y, 2) + "' r='2.5' fill='" + color(k) +
           "' fill-opacity='0.75'/>";
    }
  return s + "</svg>";
}

}  // namespace

std::string html_report(const std::vector<RunReport>& runs, const std::string& title) {
  std::string h = "<!DOCTYPE html>\n<html><head><meta charset='utf-8'><title>wafer bench: " + esc(title) +
                  "</title><style>body{font-family:sans-serif;margin:24px;color:#222}table{border-collapse:collapse}"
                  "td,th{border:1px solid #ccc;padding:4px 8px;text-align:right}th:first-child,td:first-child{text-align:left}"
                  ".swatch{display:inline-block;width:12px;height:12px;margin-right:6px}svg{display:block;margin:8px 0 24px}"
                  "</style></head><body>\n<h1>wafer bench: " + esc(title) + "</h1>\n";
  h += "<table id='summary'><tr><th>target</th><th>keystrokes</th><th>shown before the next key</th>"
       "<th>shown, pauses only</th><th>first ghost p50/p90 ms</th><th>first text p50/p90/p99 ms</th>"
       "<th>final p50/p90/p99 ms</th><th>answers/s</th><th>acceptance</th><th>chars/accepted</th><th>outcomes</th></tr>\n";
  for (size_t k = 0; k < runs.size(); ++k) {
    const Summary& s = runs[k].summary;
    std::string outcomes;
    for (const auto& [name, n] : s.outcomes) outcomes += esc(name) + " " + std::to_string(n) + " ";
    h += "<tr><td><span class='swatch' style='background:" + std::string(color(k)) + "'></span>" + esc(runs[k].target) +
         "</td><td>" + std::to_string(s.keystrokes) + "</td><td>" + num(100 * s.typing.shown_rate) + " % (" +
         std::to_string(s.typing.shown) + "/" + std::to_string(s.typing.keystrokes) + ")</td><td>" +
         num(100 * s.pauses.shown_rate) + " % (" + std::to_string(s.pauses.shown) + "/" +
         std::to_string(s.pauses.keystrokes) + ")</td><td>" + num(s.typing.first_ghost_ms.p50) + " / " +
         num(s.typing.first_ghost_ms.p90) + "</td><td>" + num(s.first_text_ms.p50) + " / " +
         num(s.first_text_ms.p90) + " / " + num(s.first_text_ms.p99) + "</td><td>" + num(s.final_ms.p50) + " / " +
         num(s.final_ms.p90) + " / " + num(s.final_ms.p99) + "</td><td>" + num(s.requests_per_s) + "</td><td>" +
         num(100 * s.acceptance_rate) + " % (" + std::to_string(s.accepted) + "/" + std::to_string(s.shown) + ")</td><td>" +
         num(s.accepted_chars_per_suggestion) + "</td><td>" + outcomes + "</td></tr>\n";
  }
  h += "</table>\n<h2>Keystroke to first text</h2>\n" + histogram(runs, true, "histogram-first") + "\n";
  h += "<h2>Keystroke to final result</h2>\n" + histogram(runs, false, "histogram-final") + "\n";
  h += "<h2>Latency over time</h2>\n" + timeline(runs) + "\n</body></html>\n";
  return h;
}

}  // namespace wafer::bench
