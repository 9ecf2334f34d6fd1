// SPDX-License-Identifier: Apache-2.0
// The legend, placed where it hides the least data: the plot area is rasterised into coarse
// cells weighted by what covers them (points most, then lines, then bands and bars), and the
// corner box with the smallest total weight wins.
#include <algorithm>
#include <cmath>

#include "chart_internal.hpp"

namespace pbp::plot::detail {
namespace {

constexpr double kCell = 4.0;  // pixels per occupancy cell
constexpr double kInset = 8.0;
constexpr double kRowHeight = 18.0;
constexpr double kSwatchWidth = 24.0;

class Occupancy {
 public:
  explicit Occupancy(const Box& area)
      : area_(area),
        columns_(static_cast<size_t>(std::ceil(area.width / kCell))),
        rows_(static_cast<size_t>(std::ceil(area.height / kCell))),
        weight_(columns_ * rows_, 0.0) {}

  // Adds `weight` to every cell the pixel rectangle [x0, x1] x [y0, y1] touches.
  void mark(double x0, double y0, double x1, double y1, double weight) {
    if (!std::isfinite(x0) || !std::isfinite(x1) || !std::isfinite(y0) || !std::isfinite(y1)) {
      return;
    }
    const auto [c0, c1] = cells(std::min(x0, x1) - area_.x, std::max(x0, x1) - area_.x, columns_);
    const auto [r0, r1] = cells(std::min(y0, y1) - area_.y, std::max(y0, y1) - area_.y, rows_);
    for (size_t r = r0; r < r1; ++r) {
      for (size_t c = c0; c < c1; ++c)
        weight_[r * columns_ + c] = std::max(weight_[r * columns_ + c], weight);
    }
  }

  // A straight segment, sampled every half cell.
  void mark_segment(double x0, double y0, double x1, double y1, double weight) {
    const double length = std::hypot(x1 - x0, y1 - y0);
    if (!std::isfinite(length)) return;
    const int steps = std::max(1, static_cast<int>(std::min(length / (0.5 * kCell), 1e5)));
    for (int s = 0; s <= steps; ++s) {
      const double t = static_cast<double>(s) / steps;
      const double px = x0 + t * (x1 - x0), py = y0 + t * (y1 - y0);
      mark(px - 1.0, py - 1.0, px + 1.0, py + 1.0, weight);
    }
  }

  double total(const Box& box) const {
    const auto [c0, c1] = cells(box.x - area_.x, box.right() - area_.x, columns_);
    const auto [r0, r1] = cells(box.y - area_.y, box.bottom() - area_.y, rows_);
    double sum = 0.0;
    for (size_t r = r0; r < r1; ++r) {
      for (size_t c = c0; c < c1; ++c) sum += weight_[r * columns_ + c];
    }
    return sum;
  }

 private:
  // The cells [first, last) that the pixel interval [from, to] touches, clamped to the grid.
  static std::pair<size_t, size_t> cells(double from, double to, size_t count) {
    const double limit = static_cast<double>(count);
    const double first = std::clamp(std::floor(from / kCell), 0.0, limit);
    const double last = std::clamp(std::floor(to / kCell) + 1.0, 0.0, limit);
    return {static_cast<size_t>(first), static_cast<size_t>(last)};
  }

  Box area_;
  size_t columns_, rows_;
  std::vector<double> weight_;
};

Occupancy occupancy(const Panel& panel, const Box& area, const Scale& x, const Scale& y) {
  Occupancy cells(area);
  for (const Band& band : panel.bands) {
    for (size_t i = 0; i + 1 < band.x.size(); ++i) {
      const double x0 = x(band.x[i]), x1 = x(band.x[i + 1]);
      const double steps = std::clamp(std::ceil(std::fabs(x1 - x0) / kCell), 1.0, 1e4);
      for (double s = 0.0; s <= steps; s += 1.0) {
        const double t = s / steps;
        const double low = y(band.lower[i] + t * (band.lower[i + 1] - band.lower[i]));
        const double high = y(band.upper[i] + t * (band.upper[i + 1] - band.upper[i]));
        const double px = x0 + t * (x1 - x0);
        cells.mark(px, low, px, high, 1.0);
      }
    }
  }
  for (const Bars& bars : panel.bars) {
    for (size_t i = 0; i < bars.left.size(); ++i) {
      const double bottom = bars.bottom.empty() ? 0.0 : bars.bottom[i];
      cells.mark(x(bars.left[i]), y(bottom), x(bars.right[i]), y(bars.top[i]), 1.0);
    }
  }
  for (const Line& line : panel.lines) {
    for (size_t i = 0; i + 1 < line.x.size(); ++i) {
      cells.mark_segment(x(line.x[i]), y(line.y[i]), x(line.x[i + 1]), y(line.y[i + 1]), 3.0);
    }
    if (line.x.size() == 1)
      cells.mark_segment(x(line.x[0]), y(line.y[0]), x(line.x[0]), y(line.y[0]), 3.0);
  }
  for (const Points& points : panel.points) {
    for (size_t i = 0; i < points.x.size(); ++i) {
      const double px = x(points.x[i]), py = y(points.y[i]);
      const double r = points.radius + 2.0;
      cells.mark(px - r, py - r, px + r, py + r, 10.0);
    }
  }
  return cells;
}

struct Entry {
  enum class Kind { points, line, band, bars } kind;
  std::string label, colour;
  double size = 0.0;  // radius or line width
  Dash dash = Dash::solid;
  bool markers = false;
  double opacity = 1.0;
};

std::vector<Entry> entries(const Panel& panel) {
  std::vector<Entry> list;
  for (const Points& p : panel.points) {
    if (!p.label.empty()) list.push_back({Entry::Kind::points, p.label, p.colour, p.radius});
  }
  for (const Line& l : panel.lines) {
    if (!l.label.empty()) {
      list.push_back({Entry::Kind::line, l.label, l.colour, l.width, l.dash, l.markers});
    }
  }
  for (const Band& b : panel.bands) {
    if (!b.label.empty()) {
      list.push_back({Entry::Kind::band, b.label, b.colour, 0.0, Dash::solid, false, b.opacity});
    }
  }
  for (const Bars& b : panel.bars) {
    if (!b.label.empty()) {
      list.push_back({Entry::Kind::bars, b.label, b.colour, 0.0, Dash::solid, false, b.opacity});
    }
  }
  return list;
}

void draw_swatch(SvgWriter& svg, const Entry& entry, double x, double centre) {
  const double mid = x + kSwatchWidth / 2.0;
  switch (entry.kind) {
    case Entry::Kind::points:
      svg.empty("circle", {{"cx", format_number(mid)},
                           {"cy", format_number(centre)},
                           {"r", format_number(entry.size)},
                           {"fill", entry.colour}});
      return;
    case Entry::Kind::line: {
      Attributes line{{"x1", format_number(x)},
                      {"y1", format_number(centre)},
                      {"x2", format_number(x + kSwatchWidth)},
                      {"y2", format_number(centre)},
                      {"stroke", entry.colour},
                      {"stroke-width", format_number(entry.size)},
                      {"stroke-linecap", "round"}};
      const std::string dashes = dash_array(entry.dash, entry.size);
      if (!dashes.empty()) line.emplace_back("stroke-dasharray", dashes);
      svg.empty("line", line);
      if (entry.markers) {
        svg.empty("circle", {{"cx", format_number(mid)},
                             {"cy", format_number(centre)},
                             {"r", format_number(entry.size + 1.2)},
                             {"fill", entry.colour}});
      }
      return;
    }
    case Entry::Kind::band:
    case Entry::Kind::bars:
      svg.empty("rect", {{"x", format_number(x)},
                         {"y", format_number(centre - 6.0)},
                         {"width", format_number(kSwatchWidth)},
                         {"height", "12"},
                         {"fill", entry.colour},
                         {"fill-opacity", format_number(entry.opacity, 3)}});
      return;
  }
}

double entry_width(const Entry& entry) {
  return kSwatchWidth + 6.0 + text_width(entry.label, kLegendFont) + 18.0;
}

// Offsets of each entry of an above-the-plot legend: left to right, wrapping at `width`.
std::vector<std::pair<double, double>> rows_layout(const std::vector<Entry>& list, double width) {
  std::vector<std::pair<double, double>> offsets;
  double x = 0.0, y = 0.0;
  for (const Entry& entry : list) {
    if (x > 0.0 && x + entry_width(entry) > width) {
      x = 0.0;
      y += kRowHeight;
    }
    offsets.emplace_back(x, y);
    x += entry_width(entry);
  }
  return offsets;
}

void draw_entry(SvgWriter& svg, const Entry& entry, double x, double centre) {
  draw_swatch(svg, entry, x, centre);
  svg.text("text",
           {{"class", "legend"},
            {"x", format_number(x + kSwatchWidth + 6.0)},
            {"y", format_number(centre + 0.35 * kLegendFont)}},
           entry.label);
}

void draw_above(SvgWriter& svg, const std::vector<Entry>& list, const Box& area) {
  const auto offsets = rows_layout(list, area.width);
  const double top = area.y - 6.0 - (offsets.back().second + kRowHeight);
  svg.open("g", {{"class", "legend"}});
  for (size_t i = 0; i < list.size(); ++i) {
    draw_entry(svg, list[i], area.x + offsets[i].first, top + offsets[i].second + kRowHeight / 2.0);
  }
  svg.close();
}

}  // namespace

double legend_height_above(const Panel& panel, double width) {
  const std::vector<Entry> list = entries(panel);
  if (panel.legend != LegendPlace::above || list.empty()) return 0.0;
  return rows_layout(list, width).back().second + kRowHeight + 6.0;
}

void draw_legend(SvgWriter& svg, const Panel& panel, const Box& area, const Scale& x,
                 const Scale& y) {
  const std::vector<Entry> list = entries(panel);
  if (list.empty() || panel.legend == LegendPlace::none) return;
  if (panel.legend == LegendPlace::above) {
    draw_above(svg, list, area);
    return;
  }
  double widest = 0.0;
  for (const Entry& entry : list) widest = std::max(widest, text_width(entry.label, kLegendFont));
  const double width = 8.0 + kSwatchWidth + 6.0 + widest + 10.0;
  const double height = 6.0 + kRowHeight * static_cast<double>(list.size());

  // The corners, then the edges' middles and the centre, in order of preference when they hide
  // equally little.
  const double left = area.x + kInset, right = area.right() - kInset - width;
  const double centre = area.x + (area.width - width) / 2.0;
  const double upper = area.y + kInset, lower = area.bottom() - kInset - height;
  const double middle = area.y + (area.height - height) / 2.0;
  const Box places[] = {{right, upper, width, height},  {left, upper, width, height},
                        {right, lower, width, height},  {left, lower, width, height},
                        {right, middle, width, height}, {left, middle, width, height},
                        {centre, upper, width, height}, {centre, lower, width, height},
                        {centre, middle, width, height}};
  const Occupancy cells = occupancy(panel, area, x, y);
  Box best = places[0];
  double least = cells.total(best);
  for (const Box& place : places) {
    const double covered = cells.total(place);
    if (covered < least) {
      least = covered;
      best = place;
    }
  }

  svg.open("g", {{"class", "legend"}});
  svg.empty("rect", {{"x", format_number(best.x)},
                     {"y", format_number(best.y)},
                     {"width", format_number(best.width)},
                     {"height", format_number(best.height)},
                     {"fill", "#FFFFFF"},
                     {"fill-opacity", "0.9"},
                     {"stroke", "#BBBBBB"},
                     {"rx", "3"}});
  for (size_t i = 0; i < list.size(); ++i) {
    draw_entry(svg, list[i], best.x + 8.0,
               best.y + 3.0 + kRowHeight * (static_cast<double>(i) + 0.5));
  }
  svg.close();
}

}  // namespace pbp::plot::detail
