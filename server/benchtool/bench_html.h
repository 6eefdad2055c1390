// The HTML report of `wafer bench`: one self-contained file (inline CSS and SVG, no
// scripts, nothing fetched) with the summary table of every run, a histogram of
// keystroke-to-first-text and keystroke-to-final latency, and latency over the course of
// the replay. Runs on the same trace are overlaid in different colours.
#pragma once

#include <string>
#include <vector>

#include "server/benchtool/bench_report.h"

namespace wafer::bench {

std::string html_report(const std::vector<RunReport>& runs, const std::string& title);

}  // namespace wafer::bench
