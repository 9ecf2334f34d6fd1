// SPDX-License-Identifier: Apache-2.0
// How each kind of series becomes SVG elements inside a panel's plot area.
#include <algorithm>
#include <cmath>

#include "chart_internal.hpp"

namespace pbp::plot::detail {
namespace {

std::string path_data(const std::vector<std::pair<double, double>>& vertices, bool closed) {
  std::string d;
  for (size_t i = 0; i < vertices.size(); ++i) {
    d += (i == 0 ? "M" : " L") + format_number(vertices[i].first) + "," +
         format_number(vertices[i].second);
  }
  return closed ? d + " Z" : d;
}

}  // namespace

void draw_band(SvgWriter& svg, const Band& band, const Scale& x, const Scale& y) {
  std::string d;
  std::vector<std::pair<double, double>> upper, lower;
  auto flush = [&] {
    if (upper.size() >= 2) {
      upper.insert(upper.end(), lower.rbegin(), lower.rend());
      d += (d.empty() ? "" : " ") + path_data(upper, true);
    }
    upper.clear();
    lower.clear();
  };
  for (size_t i = 0; i < band.x.size(); ++i) {
    if (!std::isfinite(band.x[i]) || !std::isfinite(band.lower[i]) ||
        !std::isfinite(band.upper[i])) {
      flush();
      continue;
    }
    upper.emplace_back(x(band.x[i]), y(band.upper[i]));
    lower.emplace_back(x(band.x[i]), y(band.lower[i]));
  }
  flush();
  if (d.empty()) return;
  svg.empty("path", {{"class", "band"},
                     {"d", d},
                     {"fill", band.colour},
                     {"fill-opacity", format_number(band.opacity, 3)},
                     {"stroke", "none"}});
}

void draw_bars(SvgWriter& svg, const Bars& bars, const Scale& x, const Scale& y) {
  svg.open("g", {{"class", "bars"},
                 {"fill", bars.colour},
                 {"fill-opacity", format_number(bars.opacity, 3)},
                 {"stroke", "#FFFFFF"},
                 {"stroke-width", "0.8"}});
  for (size_t i = 0; i < bars.left.size(); ++i) {
    const double bottom = bars.bottom.empty() ? 0.0 : bars.bottom[i];
    const double x0 = x(bars.left[i]), x1 = x(bars.right[i]);
    const double y0 = y(bottom), y1 = y(bars.top[i]);
    if (!std::isfinite(x0) || !std::isfinite(x1) || !std::isfinite(y0) || !std::isfinite(y1)) {
      continue;
    }
    svg.empty("rect", {{"x", format_number(std::min(x0, x1))},
                       {"y", format_number(std::min(y0, y1))},
                       {"width", format_number(std::fabs(x1 - x0))},
                       {"height", format_number(std::fabs(y1 - y0))}});
  }
  svg.close();
}

void draw_line(SvgWriter& svg, const Line& line, const Scale& x, const Scale& y) {
  std::string d;
  std::vector<std::pair<double, double>> run, vertices;
  auto flush = [&] {
    if (!run.empty()) d += (d.empty() ? "" : " ") + path_data(run, false);
    run.clear();
  };
  for (size_t i = 0; i < line.x.size(); ++i) {
    if (!std::isfinite(line.x[i]) || !std::isfinite(line.y[i])) {
      flush();
      continue;
    }
    run.emplace_back(x(line.x[i]), y(line.y[i]));
    vertices.push_back(run.back());
  }
  flush();
  if (d.empty()) return;
  Attributes attributes{{"class", "line"},
                        {"d", d},
                        {"fill", "none"},
                        {"stroke", line.colour},
                        {"stroke-width", format_number(line.width)},
                        {"stroke-linejoin", "round"},
                        {"stroke-linecap", "round"}};
  const std::string dashes = detail::dash_array(line.dash, line.width);
  if (!dashes.empty()) attributes.emplace_back("stroke-dasharray", dashes);
  svg.empty("path", attributes);
  if (!line.markers) return;
  svg.open("g", {{"class", "markers"}, {"fill", line.colour}});
  for (const auto& [px, py] : vertices) {
    svg.empty("circle", {{"cx", format_number(px)},
                         {"cy", format_number(py)},
                         {"r", format_number(line.width + 1.2)}});
  }
  svg.close();
}

void draw_points(SvgWriter& svg, const Points& points, const Scale& x, const Scale& y) {
  svg.open("g", {{"class", "points"},
                 {"fill", points.colour},
                 {"stroke", "#FFFFFF"},
                 {"stroke-width", "0.8"}});
  for (size_t i = 0; i < points.x.size(); ++i) {
    if (!std::isfinite(points.x[i]) || !std::isfinite(points.y[i])) continue;
    svg.empty("circle", {{"cx", format_number(x(points.x[i]))},
                         {"cy", format_number(y(points.y[i]))},
                         {"r", format_number(points.radius)}});
  }
  svg.close();
}

std::string dash_array(Dash dash, double width) {
  switch (dash) {
    case Dash::solid:
      return "";
    case Dash::dashed:
      return format_number(3.0 * width) + " " + format_number(2.0 * width);
    case Dash::dotted:
      return format_number(0.1) + " " + format_number(2.0 * width);
  }
  return "";
}

}  // namespace pbp::plot::detail
