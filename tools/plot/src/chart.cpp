// SPDX-License-Identifier: Apache-2.0
#include "pbp/plot/chart.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "chart_internal.hpp"
#include "pbp/trainer/atomic_file.hpp"

namespace pbp::plot {
namespace detail {

double text_width(std::string_view text, double font_size) {
  size_t characters = 0;
  for (const char c : text) characters += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return 0.6 * font_size * static_cast<double>(characters);
}

}  // namespace detail

using detail::Box;
using detail::draw_band;
using detail::draw_bars;
using detail::draw_line;
using detail::draw_points;
using detail::Scale;
using detail::text_width;

namespace {

constexpr double kTickLength = 5.0;
constexpr double kPadding = 0.04;  // of the data span, on each side of a computed range

const char* const kStyle =
    "text { fill: #222222; }\n"
    ".title { font-size: 16px; font-weight: bold; }\n"
    ".panel-title { font-size: 14px; font-weight: bold; }\n"
    ".axis-title { font-size: 13px; }\n"
    ".tick { font-size: 12px; fill: #444444; }\n"
    ".legend { font-size: 12px; }\n"
    ".annotation { font-size: 10px; fill: #444444; }\n"
    ".grid { stroke: #E6E6E6; stroke-width: 1; }\n"
    ".frame { fill: none; stroke: #555555; stroke-width: 1; }\n";

// A title's attributes: centred at x, on baseline y, its font shrunk (down to 9 px) so that its
// estimated width fits `room`. Bold text runs about 10 % wider than the estimate.
Attributes title_attributes(const char* css_class, const std::string& text, double x, double y,
                            double font_size, double room) {
  Attributes attributes{{"class", css_class},
                        {"x", format_number(x)},
                        {"y", format_number(y)},
                        {"text-anchor", "middle"}};
  const double width = 1.1 * text_width(text, font_size);
  if (width > room) {
    // An inline style: a presentation attribute would lose to the class's CSS rule.
    attributes.emplace_back(
        "style", "font-size: " + format_number(std::max(9.0, font_size * room / width), 1) + "px");
  }
  return attributes;
}

// The finite values seen along one axis.
struct Extent {
  double low = std::numeric_limits<double>::infinity();
  double high = -std::numeric_limits<double>::infinity();
  bool zero_based = false;  // bars stand on 0: do not pad below (or above) it
  void add(double value) {
    if (!std::isfinite(value)) return;
    low = std::min(low, value);
    high = std::max(high, value);
  }
  bool empty() const { return low > high; }
};

void require_same_length(size_t a, size_t b, const char* what) {
  if (a != b) throw std::invalid_argument(std::string("plot: ") + what + " differ in length");
}

void collect_extents(const Panel& panel, Extent& x, Extent& y) {
  for (const Band& band : panel.bands) {
    require_same_length(band.x.size(), band.lower.size(), "a band's x and lower values");
    require_same_length(band.x.size(), band.upper.size(), "a band's x and upper values");
    for (size_t i = 0; i < band.x.size(); ++i) {
      if (!std::isfinite(band.x[i]) || !std::isfinite(band.lower[i]) ||
          !std::isfinite(band.upper[i])) {
        continue;
      }
      x.add(band.x[i]);
      y.add(band.lower[i]);
      y.add(band.upper[i]);
    }
  }
  for (const Bars& bars : panel.bars) {
    require_same_length(bars.left.size(), bars.right.size(), "bars' left and right edges");
    require_same_length(bars.left.size(), bars.top.size(), "bars' edges and tops");
    if (!bars.bottom.empty()) require_same_length(bars.top.size(), bars.bottom.size(), "bars");
    for (size_t i = 0; i < bars.left.size(); ++i) {
      const double bottom = bars.bottom.empty() ? 0.0 : bars.bottom[i];
      if (!std::isfinite(bars.left[i]) || !std::isfinite(bars.right[i]) ||
          !std::isfinite(bars.top[i]) || !std::isfinite(bottom)) {
        continue;
      }
      x.add(bars.left[i]);
      x.add(bars.right[i]);
      y.add(bars.top[i]);
      y.add(bottom);
      y.zero_based = y.zero_based || bottom == 0.0;
    }
  }
  for (const Line& line : panel.lines) {
    require_same_length(line.x.size(), line.y.size(), "a line's x and y values");
    for (size_t i = 0; i < line.x.size(); ++i) {
      if (std::isfinite(line.x[i]) && std::isfinite(line.y[i])) {
        x.add(line.x[i]);
        y.add(line.y[i]);
      }
    }
  }
  for (const Points& points : panel.points) {
    require_same_length(points.x.size(), points.y.size(), "points' x and y values");
    for (size_t i = 0; i < points.x.size(); ++i) {
      if (std::isfinite(points.x[i]) && std::isfinite(points.y[i])) {
        x.add(points.x[i]);
        y.add(points.y[i]);
      }
    }
  }
}

Range axis_range(const Extent& extent, const std::optional<Range>& fixed, const Panel& panel) {
  if (fixed) {
    if (!std::isfinite(fixed->low) || !std::isfinite(fixed->high) || !(fixed->low < fixed->high)) {
      throw std::invalid_argument("plot: an axis range needs finite low < high");
    }
    return *fixed;
  }
  if (extent.empty()) {
    throw std::invalid_argument("plot: panel '" + panel.title + "' has no finite data");
  }
  Range range{extent.low, extent.high};
  const double span = range.high - range.low;
  if (!(span > 1e-12 * std::max(std::fabs(range.low), std::fabs(range.high)))) {
    const double half = range.low != 0.0 ? 0.05 * std::fabs(range.low) : 1.0;
    return {range.low - half, range.high + half};
  }
  if (!(extent.zero_based && range.low == 0.0)) range.low -= kPadding * span;
  if (!(extent.zero_based && range.high == 0.0)) range.high += kPadding * span;
  return range;
}

// The most ticks (up to `target`) whose labels fit the axis length without overlapping.
Ticks fitting_ticks(Range range, double length, int target, bool integers, bool horizontal) {
  for (int count = target; count > 2; --count) {
    const Ticks ticks = nice_ticks(range, count, integers);
    double widest = 0.0;
    for (const double value : ticks.values) {
      widest = std::max(widest, text_width(tick_label(value, ticks.decimals), detail::kTickFont));
    }
    const double needed = horizontal ? widest + 12.0 : 2.2 * detail::kTickFont;
    const double spacing =
        ticks.values.size() < 2 ? length : length / static_cast<double>(ticks.values.size() - 1);
    if (spacing >= needed) return ticks;
  }
  return nice_ticks(range, 2, integers);
}

void draw_axes(SvgWriter& svg, const Box& area, const Scale& x, const Scale& y, const Ticks& xt,
               const Ticks& yt) {
  svg.open("g", {{"class", "axes"}});
  svg.empty("rect", {{"class", "frame"},
                     {"x", format_number(area.x)},
                     {"y", format_number(area.y)},
                     {"width", format_number(area.width)},
                     {"height", format_number(area.height)}});
  for (const double value : xt.values) {
    const std::string px = format_number(x(value));
    svg.empty("line", {{"class", "frame"},
                       {"x1", px},
                       {"y1", format_number(area.bottom())},
                       {"x2", px},
                       {"y2", format_number(area.bottom() + kTickLength)}});
    svg.text("text",
             {{"class", "tick"},
              {"x", px},
              {"y", format_number(area.bottom() + kTickLength + 3.0 + detail::kTickFont)},
              {"text-anchor", "middle"}},
             tick_label(value, xt.decimals));
  }
  for (const double value : yt.values) {
    const double py = y(value);
    svg.empty("line", {{"class", "frame"},
                       {"x1", format_number(area.x - kTickLength)},
                       {"y1", format_number(py)},
                       {"x2", format_number(area.x)},
                       {"y2", format_number(py)}});
    svg.text("text",
             {{"class", "tick"},
              {"x", format_number(area.x - kTickLength - 3.0)},
              {"y", format_number(py + 0.35 * detail::kTickFont)},
              {"text-anchor", "end"}},
             tick_label(value, yt.decimals));
  }
  svg.close();
}

void draw_grid(SvgWriter& svg, const Box& area, const Scale& x, const Scale& y, const Ticks& xt,
               const Ticks& yt) {
  svg.open("g", {{"class", "grid"}});
  for (const double value : xt.values) {
    const std::string px = format_number(x(value));
    svg.empty("line", {{"x1", px},
                       {"y1", format_number(area.y)},
                       {"x2", px},
                       {"y2", format_number(area.bottom())}});
  }
  for (const double value : yt.values) {
    const std::string py = format_number(y(value));
    svg.empty("line", {{"x1", format_number(area.x)},
                       {"y1", py},
                       {"x2", format_number(area.right())},
                       {"y2", py}});
  }
  svg.close();
}

void draw_panel(SvgWriter& svg, const Panel& panel, const Box& box, size_t index) {
  Extent x_extent, y_extent;
  collect_extents(panel, x_extent, y_extent);
  const Range x_range = axis_range(x_extent, panel.x_range, panel);
  const Range y_range = axis_range(y_extent, panel.y_range, panel);

  // Margins around the plot area: the title above, tick labels and axis titles left and below.
  // The legend's rows are laid out for a width no wider than the plot area will be.
  const double top = (panel.title.empty() ? 10.0 : detail::kPanelTitleFont + 14.0) +
                     detail::legend_height_above(panel, box.width - 100.0);
  const double bottom = kTickLength + 6.0 + detail::kTickFont +
                        (panel.x_title.empty() ? 6.0 : detail::kAxisTitleFont + 12.0);
  const double y_length = box.height - top - bottom;
  const Ticks y_ticks = fitting_ticks(
      y_range, y_length, std::clamp(static_cast<int>(y_length / 45.0), 3, 9), false, false);
  double widest = 0.0;
  for (const double value : y_ticks.values) {
    widest = std::max(widest, text_width(tick_label(value, y_ticks.decimals), detail::kTickFont));
  }
  const double left = 6.0 + (panel.y_title.empty() ? 0.0 : detail::kAxisTitleFont + 8.0) + widest +
                      kTickLength + 4.0;
  const double right = 18.0;
  const Box area{box.x + left, box.y + top, box.width - left - right, y_length};
  if (area.width < 40.0 || area.height < 40.0) {
    throw std::invalid_argument("plot: the figure is too small for its panels");
  }
  const Ticks x_ticks =
      fitting_ticks(x_range, area.width, std::clamp(static_cast<int>(area.width / 70.0), 3, 11),
                    panel.integer_x, true);
  const Scale x{x_range, area.x, area.right()};
  const Scale y{y_range, area.bottom(), area.y};

  svg.open("g", {{"class", "panel"}});
  const std::string clip = "plot-area-" + std::to_string(index);
  svg.open("clipPath", {{"id", clip}});
  svg.empty("rect", {{"x", format_number(area.x)},
                     {"y", format_number(area.y)},
                     {"width", format_number(area.width)},
                     {"height", format_number(area.height)}});
  svg.close();
  draw_grid(svg, area, x, y, x_ticks, y_ticks);
  svg.open("g", {{"class", "data"}, {"clip-path", "url(#" + clip + ")"}});
  for (const Band& band : panel.bands) draw_band(svg, band, x, y);
  for (const Bars& bars : panel.bars) draw_bars(svg, bars, x, y);
  for (const Line& line : panel.lines) draw_line(svg, line, x, y);
  for (const Points& points : panel.points) draw_points(svg, points, x, y);
  for (const Annotation& note : panel.annotations) {
    if (!std::isfinite(x(note.x)) || !std::isfinite(y(note.y))) continue;
    svg.text("text",
             {{"class", "annotation"},
              {"x", format_number(x(note.x))},
              {"y", format_number(y(note.y) - 3.0)},
              {"text-anchor", "middle"}},
             note.text);
  }
  svg.close();
  draw_axes(svg, area, x, y, x_ticks, y_ticks);

  const double centre_x = area.x + area.width / 2.0;
  if (!panel.title.empty()) {
    svg.text("text",
             title_attributes("panel-title", panel.title, centre_x,
                              box.y + detail::kPanelTitleFont + 2.0, detail::kPanelTitleFont,
                              2.0 * std::min(centre_x - box.x, box.right() - centre_x) - 8.0),
             panel.title);
  }
  if (!panel.x_title.empty()) {
    svg.text("text",
             {{"class", "axis-title"},
              {"x", format_number(centre_x)},
              {"y", format_number(box.bottom() - 8.0)},
              {"text-anchor", "middle"}},
             panel.x_title);
  }
  if (!panel.y_title.empty()) {
    const double tx = box.x + 6.0 + detail::kAxisTitleFont;
    const double ty = area.y + area.height / 2.0;
    svg.text("text",
             {{"class", "axis-title"},
              {"x", format_number(tx)},
              {"y", format_number(ty)},
              {"text-anchor", "middle"},
              {"transform", "rotate(-90 " + format_number(tx) + " " + format_number(ty) + ")"}},
             panel.y_title);
  }
  detail::draw_legend(svg, panel, area, x, y);
  svg.close();
}

}  // namespace

std::string render_svg(const Figure& figure) {
  if (figure.panels.empty()) throw std::invalid_argument("plot: a figure needs a panel");
  const size_t columns = std::max<size_t>(1, figure.columns);
  const size_t rows = (figure.panels.size() + columns - 1) / columns;
  std::vector<double> weights = figure.row_weights;
  if (weights.empty()) weights.assign(rows, 1.0);
  if (weights.size() != rows) {
    throw std::invalid_argument("plot: row_weights must have one weight per row of panels");
  }
  double total = 0.0;
  for (const double weight : weights) {
    if (!(weight > 0.0) || !std::isfinite(weight)) {
      throw std::invalid_argument("plot: row weights must be positive");
    }
    total += weight;
  }

  SvgWriter svg(figure.width, figure.height);
  svg.text("title", {}, figure.title.empty() ? "chart" : figure.title);
  svg.text("style", {{"type", "text/css"}}, kStyle);
  svg.empty("rect", {{"width", "100%"}, {"height", "100%"}, {"fill", "#FFFFFF"}});
  svg.open("g", {{"font-family", "DejaVu Sans, Helvetica, Arial, sans-serif"}});
  double top = 4.0;
  if (!figure.title.empty()) {
    svg.text("text",
             title_attributes("title", figure.title, figure.width / 2.0,
                              top + detail::kFigureTitleFont + 4.0, detail::kFigureTitleFont,
                              figure.width - 16.0),
             figure.title);
    top += detail::kFigureTitleFont + 14.0;
  }
  const double cell_width = (figure.width - 8.0) / static_cast<double>(columns);
  const double available = figure.height - top - 4.0;
  double row_top = top;
  for (size_t row = 0; row < rows; ++row) {
    const double row_height = available * weights[row] / total;
    for (size_t column = 0; column < columns; ++column) {
      const size_t index = row * columns + column;
      if (index >= figure.panels.size()) break;
      const Box box{4.0 + cell_width * static_cast<double>(column), row_top, cell_width,
                    row_height};
      draw_panel(svg, figure.panels[index], box, index);
    }
    row_top += row_height;
  }
  svg.close();
  return svg.finish();
}

void write_svg(const std::string& path, const Figure& figure) {
  trainer::write_file_atomically(path, render_svg(figure));
}

}  // namespace pbp::plot
