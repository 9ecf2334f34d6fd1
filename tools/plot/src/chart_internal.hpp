// SPDX-License-Identifier: Apache-2.0
// What the chart's layout and its legend placement share (not part of the library's interface).
#pragma once
#include <string>
#include <string_view>

#include "pbp/plot/chart.hpp"
#include "pbp/plot/svg.hpp"

namespace pbp::plot::detail {

inline constexpr double kTickFont = 12.0;
inline constexpr double kAxisTitleFont = 13.0;
inline constexpr double kPanelTitleFont = 14.0;
inline constexpr double kFigureTitleFont = 16.0;
inline constexpr double kLegendFont = 12.0;

// Estimated width of `text` at `font_size`: no font metrics in a dependency-free writer, so an
// average sans-serif advance of 0.6 em per character (UTF-8 continuation bytes not counted).
double text_width(std::string_view text, double font_size);

struct Box {
  double x = 0.0, y = 0.0, width = 0.0, height = 0.0;
  double right() const { return x + width; }
  double bottom() const { return y + height; }
};

// Maps a data range onto pixels (from -> to; to < from for the y axis).
struct Scale {
  Range domain;
  double from = 0.0, to = 1.0;
  double operator()(double value) const {
    return from + (value - domain.low) / (domain.high - domain.low) * (to - from);
  }
};

// Each series inside the plot area (chart_series.cpp); non-finite values are skipped, and a
// band or line breaks at them.
void draw_band(SvgWriter& svg, const Band& band, const Scale& x, const Scale& y);
void draw_bars(SvgWriter& svg, const Bars& bars, const Scale& x, const Scale& y);
void draw_line(SvgWriter& svg, const Line& line, const Scale& x, const Scale& y);
void draw_points(SvgWriter& svg, const Points& points, const Scale& x, const Scale& y);

// The height a LegendPlace::above legend of `panel` takes over a plot area `width` wide (0 for
// the other places or without labelled series).
double legend_height_above(const Panel& panel, double width);

// Draws the legend of `panel` (if it has labelled series) where panel.legend says, for the plot
// area `area`.
void draw_legend(SvgWriter& svg, const Panel& panel, const Box& area, const Scale& x,
                 const Scale& y);

// stroke-dasharray for a dash style; empty for solid.
std::string dash_array(Dash dash, double width);

}  // namespace pbp::plot::detail
