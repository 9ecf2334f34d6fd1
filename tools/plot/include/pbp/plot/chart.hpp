// SPDX-License-Identifier: Apache-2.0
// Charts on top of the SVG writer: panels with axes, "nice" ticks, titles, a legend, and line,
// point, band and bar series. Sizes are in SVG user units (pixels at 100 % zoom).
//
// Degenerate input: a series whose coordinate vectors differ in length, a figure without
// panels, a panel without any finite value or a figure too small for its panels is an
// std::invalid_argument. Non-finite values (NaN, infinity) are skipped: a line or band breaks
// at them, a point or bar is left out. A constant or single-point range is widened around its
// value so the axis still has ticks. Titles too wide for their space get a smaller font.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace pbp::plot {

// A colour-blind-safe palette (Okabe & Ito 2008) plus the greys the charts use.
namespace colour {
inline constexpr const char* blue = "#0072B2";
inline constexpr const char* orange = "#E69F00";
inline constexpr const char* green = "#009E73";
inline constexpr const char* vermilion = "#D55E00";
inline constexpr const char* purple = "#CC79A7";
inline constexpr const char* sky = "#56B4E9";
inline constexpr const char* black = "#000000";
inline constexpr const char* grey = "#7F7F7F";
}  // namespace colour

struct Range {
  double low = 0.0;
  double high = 1.0;
};

// Tick values that are multiples of 1, 2 or 5 x 10^k inside [low, high], about `target` of them
// (never fewer than 2 when high > low), and the decimals their labels need.
struct Ticks {
  std::vector<double> values;
  int decimals = 0;
};
Ticks nice_ticks(Range range, int target = 6, bool integers_only = false);

// A tick label: `decimals` decimals, a typographic minus sign (U+2212) for negative values.
std::string tick_label(double value, int decimals);

enum class Dash { solid, dashed, dotted };

struct Line {
  std::string label;  // empty: not in the legend
  std::vector<double> x, y;
  std::string colour = colour::blue;
  double width = 2.0;
  Dash dash = Dash::solid;
  bool markers = false;  // a small circle at every vertex
};

struct Points {
  std::string label;
  std::vector<double> x, y;
  std::string colour = colour::black;
  double radius = 3.5;
};

// The area between `lower` and `upper` over `x` (a polygon).
struct Band {
  std::string label;
  std::vector<double> x, lower, upper;
  std::string colour = colour::blue;
  double opacity = 0.25;
};

// Rectangles from `bottom` (0 when empty) to `top`, spanning [left, right] on the x axis.
struct Bars {
  std::string label;
  std::vector<double> left, right, top, bottom;
  std::string colour = colour::blue;
  double opacity = 0.85;
};

// A small text centred just above the point (x, y), e.g. a bar's count; skipped if not finite.
struct Annotation {
  double x = 0.0, y = 0.0;
  std::string text;
};

// Where a panel's legend goes: inside the plot area where it hides the least data (a corner
// first, else an edge's middle or the centre), in rows between the panel title and the plot
// area (never over data), or nowhere.
enum class LegendPlace { best_corner, above, none };

struct Panel {
  std::string title, x_title, y_title;
  std::optional<Range> x_range, y_range;  // default: the data's range, padded
  bool integer_x = false;                 // x ticks on whole numbers only (e.g. epochs)
  std::vector<Band> bands;                // drawn first,
  std::vector<Bars> bars;                 // then bars,
  std::vector<Line> lines;                // lines,
  std::vector<Points> points;             // and points on top
  std::vector<Annotation> annotations;    // then texts (not part of the axis ranges)
  LegendPlace legend = LegendPlace::best_corner;
};

// Panels in a grid of `columns`, filled row by row; each row's height is proportional to its
// entry in `row_weights` (empty: equal rows).
struct Figure {
  std::string title;
  double width = 720.0;
  double height = 480.0;
  size_t columns = 1;
  std::vector<double> row_weights;
  std::vector<Panel> panels;
};

// The figure as a self-contained SVG document: no scripts, no external fonts or references.
std::string render_svg(const Figure& figure);

// render_svg, written atomically (trainer/include/pbp/trainer/atomic_file.hpp).
void write_svg(const std::string& path, const Figure& figure);

}  // namespace pbp::plot
