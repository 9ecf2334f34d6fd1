// SPDX-License-Identifier: Apache-2.0
// The chart layer: nice ticks, the elements each series becomes, degenerate input, the legend.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "chart_queries.hpp"
#include "pbp/plot/chart.hpp"
#include "pbp/trainer/random.hpp"

namespace pbp::plot {
namespace {

using chart_test::axis_ticks;
using chart_test::Element;
using chart_test::parse;
using chart_test::texts;

double attribute(const Element* element, const std::string& key) {
  return std::stod(element->attributes.at(key));
}

bool contains(const std::vector<std::string>& list, const std::string& value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

TEST(NiceTicks, KnownRanges) {
  Ticks unit = nice_ticks({0.0, 1.0}, 6);
  ASSERT_EQ(unit.values.size(), 6u);
  EXPECT_DOUBLE_EQ(unit.values[0], 0.0);
  EXPECT_DOUBLE_EQ(unit.values[1], 0.2);
  EXPECT_DOUBLE_EQ(unit.values[5], 1.0);
  EXPECT_EQ(unit.decimals, 1);

  const Ticks symmetric = nice_ticks({-4.3, 4.1}, 5);
  EXPECT_EQ(symmetric.values, (std::vector<double>{-4, -2, 0, 2, 4}));
  EXPECT_EQ(symmetric.decimals, 0);

  const Ticks large = nice_ticks({-812.0, 905.0}, 6);
  EXPECT_EQ(large.values, (std::vector<double>{-800, -600, -400, -200, 0, 200, 400, 600, 800}));

  const Ticks narrow = nice_ticks({0.9531, 0.9987}, 5);
  EXPECT_EQ(narrow.decimals, 2);
  EXPECT_NEAR(narrow.values.front(), 0.96, 1e-12);

  EXPECT_EQ(nice_ticks({0.95, 1.05}, 6, true).values, (std::vector<double>{1}));
  EXPECT_EQ(nice_ticks({0.5, 40.5}, 8, true).values,
            (std::vector<double>{5, 10, 15, 20, 25, 30, 35, 40}));
  EXPECT_EQ(nice_ticks({0.9, 3.1}, 10, true).values, (std::vector<double>{1, 2, 3}));

  EXPECT_THROW(nice_ticks({1.0, 1.0}), std::invalid_argument);
  EXPECT_THROW(nice_ticks({2.0, 1.0}), std::invalid_argument);
  EXPECT_THROW(nice_ticks({NAN, 1.0}), std::invalid_argument);
}

TEST(NiceTicks, RandomRangesGiveEvenNiceSteps) {
  trainer::Random random(11);
  for (int trial = 0; trial < 2000; ++trial) {
    const double scale = std::pow(10.0, 12.0 * random.uniform() - 6.0);
    const double low = scale * (4.0 * random.uniform() - 2.0);
    const double high = low + scale * (0.01 + 3.0 * random.uniform());
    const int target = 2 + static_cast<int>(random.below(9));
    const Ticks ticks = nice_ticks({low, high}, target);
    ASSERT_GE(ticks.values.size(), 2u) << low << " " << high;
    ASSERT_LE(ticks.values.size(), static_cast<size_t>(2 * target + 1)) << low << " " << high;
    const double step = ticks.values[1] - ticks.values[0];
    const double exponent = std::floor(std::log10(step) + 1e-9);
    const double mantissa = step / std::pow(10.0, exponent);
    EXPECT_TRUE(std::fabs(mantissa - 1) < 1e-6 || std::fabs(mantissa - 2) < 1e-6 ||
                std::fabs(mantissa - 5) < 1e-6)
        << "step " << step;
    for (size_t i = 0; i < ticks.values.size(); ++i) {
      EXPECT_GE(ticks.values[i], low - 1e-9 * scale);
      EXPECT_LE(ticks.values[i], high + 1e-9 * scale);
      if (i > 0) {
        EXPECT_NEAR(ticks.values[i] - ticks.values[i - 1], step, 1e-6 * step);
      }
    }
    // The labels tell neighbouring ticks apart.
    EXPECT_NE(tick_label(ticks.values[0], ticks.decimals),
              tick_label(ticks.values[1], ticks.decimals));
  }
}

TEST(TickLabel, MinusSignAndNoNegativeZero) {
  EXPECT_EQ(tick_label(-2.0, 0), "\u22122");
  EXPECT_EQ(tick_label(-0.25, 2), "\u22120.25");
  EXPECT_EQ(tick_label(-0.0001, 1), "0.0");
  EXPECT_EQ(tick_label(0.5, 1), "0.5");
  EXPECT_EQ(tick_label(400.0, 0), "400");
}

Figure example_figure() {
  Panel panel;
  panel.title = "t & <p>";
  panel.x_title = "x";
  panel.y_title = "y";
  Band band{"band", {0, 5, 10}, {-1, -2, -1}, {1, 2, 1}};
  panel.bands.push_back(band);
  panel.lines.push_back({"line", {0, 5, 10}, {0, 1, 0}});
  panel.points.push_back({"points", {1, 2, 3, 4, 6, 7, 8}, {0, 0.5, 1, -1, 0.2, 0.1, -0.5}});
  Figure figure;
  figure.title = "figure \"one\"";
  figure.panels.push_back(panel);
  return figure;
}

TEST(RenderSvg, ElementsForEverySeries) {
  const std::string document = render_svg(example_figure());
  const Element root = parse(document);
  EXPECT_EQ(root.name, "svg");
  EXPECT_EQ(root.attributes.at("viewBox"), "0 0 720 480");
  EXPECT_EQ(root.find_all("script").size(), 0u);
  EXPECT_EQ(root.find_all("style").size(), 1u);
  EXPECT_EQ(document.find("href"), std::string::npos);  // nothing external
  EXPECT_EQ(root.with_class("path", "band").size(), 1u);
  EXPECT_EQ(root.with_class("path", "line").size(), 1u);
  ASSERT_EQ(root.with_class("g", "points").size(), 1u);
  EXPECT_EQ(root.with_class("g", "points")[0]->find_all("circle").size(), 7u);
  EXPECT_EQ(root.find_all("clipPath").size(), 1u);
  const std::vector<std::string> x_ticks = axis_ticks(root, 'x');
  EXPECT_TRUE(contains(x_ticks, "0")) << document;
  EXPECT_TRUE(contains(x_ticks, "10"));
  const std::vector<std::string> y_ticks = axis_ticks(root, 'y');
  EXPECT_TRUE(contains(y_ticks, "\u22122.0")) << document;
  EXPECT_TRUE(contains(y_ticks, "2.0"));
  EXPECT_TRUE(contains(texts(root, "title"), "figure \"one\""));
  EXPECT_TRUE(contains(texts(root, "panel-title"), "t & <p>"));
  const std::vector<std::string> legend = texts(root, "legend");
  EXPECT_EQ(legend, (std::vector<std::string>{"points", "line", "band"}));
  EXPECT_EQ(document, render_svg(example_figure()));  // deterministic
}

TEST(RenderSvg, NonFiniteValuesAreSkippedAndBreakLines) {
  Figure figure = example_figure();
  Panel& panel = figure.panels[0];
  panel.points[0].y[2] = NAN;
  panel.points[0].x[3] = INFINITY;
  panel.lines[0] = {"line", {0, 1, 2, 3, 4}, {0, 1, NAN, 3, 4}};
  panel.bands[0] = {"band", {0, 1, 2, 3, 4, 5}, {0, 0, 0, NAN, 0, 0}, {1, 1, 1, 1, 1, 1}};
  const Element root = parse(render_svg(figure));
  EXPECT_EQ(root.with_class("g", "points")[0]->find_all("circle").size(), 5u);
  const std::string line = root.with_class("path", "line")[0]->attributes.at("d");
  EXPECT_EQ(std::count(line.begin(), line.end(), 'M'), 2);
  const std::string band = root.with_class("path", "band")[0]->attributes.at("d");
  EXPECT_EQ(std::count(band.begin(), band.end(), 'Z'), 2);
}

TEST(RenderSvg, DegenerateRangesStillGetTicks) {
  Panel constant;
  constant.lines.push_back({"", {1, 2, 3}, {5, 5, 5}});
  Panel single;
  single.points.push_back({"", {2}, {3}});
  single.integer_x = true;
  Panel zero;
  zero.lines.push_back({"", {0, 0}, {0, 0}});
  for (const Panel& panel : {constant, single, zero}) {
    Figure figure;
    figure.panels = {panel};
    const Element root = parse(render_svg(figure));
    EXPECT_GE(axis_ticks(root, 'y').size(), 2u);
    EXPECT_GE(axis_ticks(root, 'x').size(), 1u);
  }
}

TEST(RenderSvg, BadInputIsAClearError) {
  Figure none;
  EXPECT_THROW(render_svg(none), std::invalid_argument);
  Figure empty;
  empty.panels.emplace_back();
  EXPECT_THROW(render_svg(empty), std::invalid_argument);
  Figure all_nan;
  all_nan.panels.emplace_back().points.push_back({"", {NAN}, {1}});
  EXPECT_THROW(render_svg(all_nan), std::invalid_argument);
  Figure ragged = example_figure();
  ragged.panels[0].lines[0].y.pop_back();
  EXPECT_THROW(render_svg(ragged), std::invalid_argument);
  Figure bad_range = example_figure();
  bad_range.panels[0].y_range = Range{1.0, 1.0};
  EXPECT_THROW(render_svg(bad_range), std::invalid_argument);
  Figure tiny = example_figure();
  tiny.width = 60;
  EXPECT_THROW(render_svg(tiny), std::invalid_argument);
  Figure weights = example_figure();
  weights.row_weights = {1.0, 2.0};  // one row of panels
  EXPECT_THROW(render_svg(weights), std::invalid_argument);
}

TEST(RenderSvg, LegendAvoidsTheData) {
  // Points fill the top right; the legend must go elsewhere and cover none of them.
  Panel panel;
  Points crowd{"crowd", {}, {}};
  for (int i = 0; i < 10; ++i) {
    for (int j = 0; j < 10; ++j) {
      crowd.x.push_back(6.0 + 0.4 * i);
      crowd.y.push_back(6.0 + 0.4 * j);
    }
  }
  panel.points.push_back(crowd);
  panel.lines.push_back({"frame", {0, 10}, {0, 0}});
  Figure figure;
  figure.panels = {panel};
  const Element root = parse(render_svg(figure));
  const auto legend = root.with_class("g", "legend");
  ASSERT_EQ(legend.size(), 1u);
  const Element* box = legend[0]->find_all("rect")[0];
  const double x0 = attribute(box, "x"), y0 = attribute(box, "y");
  const double x1 = x0 + attribute(box, "width"), y1 = y0 + attribute(box, "height");
  for (const Element* circle : root.with_class("g", "points")[0]->find_all("circle")) {
    const double cx = attribute(circle, "cx"), cy = attribute(circle, "cy");
    EXPECT_FALSE(cx > x0 && cx < x1 && cy > y0 && cy < y1) << cx << "," << cy;
  }
}

TEST(RenderSvg, LegendAboveSitsOutsideThePlotArea) {
  Figure figure = example_figure();
  figure.panels[0].legend = LegendPlace::above;
  const Element root = parse(render_svg(figure));
  const Element* frame = root.with_class("rect", "frame")[0];
  const auto legend = root.with_class("text", "legend");
  ASSERT_EQ(legend.size(), 3u);
  for (const Element* text : legend) EXPECT_LT(attribute(text, "y"), attribute(frame, "y"));
  figure.panels[0].legend = LegendPlace::none;
  EXPECT_TRUE(parse(render_svg(figure)).with_class("text", "legend").empty());
}

TEST(RenderSvg, BarsPanelsAndAnnotations) {
  Panel top;
  top.bars.push_back({"bars", {0, 1, 2}, {1, 2, 3}, {3, 1, 2}, {}});
  top.bars.push_back({"", {0, 1}, {1, 2}, {4, 2}, {3, 1}});
  top.annotations = {{0.5, 3, "12"}, {NAN, 1, "skipped"}};
  Panel right;
  right.lines.push_back({"", {1, 2}, {3, 4}});
  Panel below;
  below.points.push_back({"", {1}, {1}});
  Figure figure;
  figure.columns = 2;
  figure.row_weights = {2.0, 1.0};
  figure.panels = {top, right, below};
  const Element root = parse(render_svg(figure));
  EXPECT_EQ(root.with_class("g", "panel").size(), 3u);
  const auto clips = root.find_all("clipPath");
  ASSERT_EQ(clips.size(), 3u);
  EXPECT_NE(clips[0]->attributes.at("id"), clips[1]->attributes.at("id"));
  const auto bars = root.with_class("g", "bars");
  ASSERT_EQ(bars.size(), 2u);
  EXPECT_EQ(bars[0]->find_all("rect").size(), 3u);
  EXPECT_EQ(bars[1]->find_all("rect").size(), 2u);
  EXPECT_EQ(texts(root, "annotation"), (std::vector<std::string>{"12"}));
  // The first row is twice as tall as the second.
  const auto frames = root.with_class("rect", "frame");
  ASSERT_EQ(frames.size(), 3u);
  EXPECT_GT(attribute(frames[0], "height"), 1.8 * attribute(frames[2], "height"));
}

}  // namespace
}  // namespace pbp::plot
