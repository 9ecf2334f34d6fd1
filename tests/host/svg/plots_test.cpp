// SPDX-License-Identifier: Apache-2.0
// The ready-made figures: what each contains, and writing them to files.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "chart_queries.hpp"
#include "pbp/plot/plots.hpp"
#include "pbp/trainer/random.hpp"

namespace pbp::plot {
namespace {

using chart_test::axis_ticks;
using chart_test::Element;
using chart_test::parse;
using chart_test::texts;

// The PBP paper's toy problem, with a made-up predictive distribution.
BandPlot toy_band() {
  trainer::Random random(5);
  BandPlot plot;
  for (int i = 0; i < 20; ++i) {
    const double x = -4.0 + 8.0 * random.uniform();
    plot.train_x.push_back(x);
    plot.train_y.push_back(x * x * x + 3.0 * random.normal());
  }
  for (int i = 0; i <= 120; ++i) {
    const double x = -6.0 + 0.1 * i;
    plot.grid_x.push_back(x);
    plot.true_y.push_back(x * x * x);
    plot.mean.push_back(0.9 * x * x * x);
    plot.std.push_back(3.0 + 4.0 * x * x);
  }
  return plot;
}

TEST(BandPlot, DataTruthMeanAndBand) {
  const BandPlot plot = toy_band();
  const Element root = parse(render_svg(band_figure(plot)));
  EXPECT_EQ(root.with_class("path", "band").size(), 1u);
  EXPECT_EQ(root.with_class("path", "line").size(), 2u);  // true function and mean
  EXPECT_EQ(root.with_class("g", "points")[0]->find_all("circle").size(), 20u);
  EXPECT_EQ(texts(root, "legend"),
            (std::vector<std::string>{"training data (20)", "true function", "predictive mean",
                                      "mean \u00B1 3 std"}));
  // The y axis covers the truth (+-216) with 30 % to spare, and cuts the band, which reaches
  // 0.9 * 216 + 3 * 147 = 635 at the grid's ends; an explicit range shows all of it.
  const std::vector<std::string> ticks = axis_ticks(root, 'y');
  EXPECT_NE(std::find(ticks.begin(), ticks.end(), "300"), ticks.end());
  EXPECT_EQ(std::find(ticks.begin(), ticks.end(), "600"), ticks.end());
  BandPlot whole_band = plot;
  whole_band.y_range = Range{-700.0, 700.0};
  const std::vector<std::string> wider =
      axis_ticks(parse(render_svg(band_figure(whole_band))), 'y');
  EXPECT_NE(std::find(wider.begin(), wider.end(), "600"), wider.end());

  BandPlot with_range = plot;
  with_range.training_range = Range{-3.5, 3.7};
  const Element ranged = parse(render_svg(band_figure(with_range)));
  EXPECT_EQ(ranged.with_class("path", "line").size(), 4u);  // two dashed lines more
  const std::vector<std::string> legend = texts(ranged, "legend");
  EXPECT_EQ(legend.size(), 5u);  // the second line has no label of its own
  EXPECT_NE(std::find(legend.begin(), legend.end(), "training range"), legend.end());

  BandPlot without_truth = plot;
  without_truth.true_y.clear();
  without_truth.k = 2.0;
  const Element second = parse(render_svg(band_figure(without_truth)));
  EXPECT_EQ(second.with_class("path", "line").size(), 1u);
  EXPECT_EQ(texts(second, "legend").back(), "mean \u00B1 2 std");

  BandPlot ragged = plot;
  ragged.std.pop_back();
  EXPECT_THROW(band_figure(ragged), std::invalid_argument);
  BandPlot no_k = plot;
  no_k.k = 0.0;
  EXPECT_THROW(band_figure(no_k), std::invalid_argument);
}

TEST(CoveragePlot, ObservedLineIdealAndCalibratedRange) {
  const std::vector<trainer::CoverageLevel> levels{{0.5, 0.4}, {0.9, 0.85}, {0.95, 0.93}};
  const Element root = parse(render_svg(coverage_figure(levels, 100, "coverage")));
  ASSERT_EQ(root.with_class("g", "markers").size(), 1u);
  EXPECT_EQ(root.with_class("g", "markers")[0]->find_all("circle").size(), 3u);
  EXPECT_EQ(root.with_class("path", "line").size(), 2u);  // the diagonal and the observations
  EXPECT_EQ(root.with_class("path", "band").size(), 1u);
  EXPECT_TRUE(
      parse(render_svg(coverage_figure(levels, 0, "c"))).with_class("path", "band").empty());
  EXPECT_THROW(coverage_figure({}, 10, "c"), std::invalid_argument);
}

TEST(ReliabilityDiagram, BarsPerNonEmptyBinAndCounts) {
  // Binary: 6 rows, confidences 0.55 (x2, bin 8), 0.95 (x3, bin 14), 0.75 (bin 11).
  const std::vector<double> labels{1, 0, 1, 1, 1, 0};
  const std::vector<double> p{0.45, 0.55, 0.55, 0.45, 0.05, 0.95,
                              0.05, 0.95, 0.05, 0.95, 0.75, 0.25};
  const trainer::ClassificationMetrics metrics = trainer::classification_metrics(labels, p, 2);
  const Element root = parse(render_svg(reliability_figure(metrics, 2, "reliability")));
  const auto bars = root.with_class("g", "bars");
  ASSERT_EQ(bars.size(), 2u);  // accuracy, rows
  EXPECT_EQ(bars[0]->find_all("rect").size(), 3u);
  EXPECT_EQ(bars[1]->find_all("rect").size(), 3u);
  EXPECT_EQ(texts(root, "annotation"), (std::vector<std::string>{"2", "1", "3"}));
  // Binary confidences are at least 0.5: the axis starts at the bin edge 7/15.
  const std::vector<std::string> ticks = axis_ticks(root, 'x');
  EXPECT_NE(std::find(ticks.begin(), ticks.end(), "0.5"), ticks.end());
  EXPECT_EQ(std::find(ticks.begin(), ticks.end(), "0.2"), ticks.end());
  const std::vector<std::string> titles = texts(root, "panel-title");
  ASSERT_EQ(titles.size(), 1u);
  EXPECT_NE(titles[0].find("6 rows"), std::string::npos) << titles[0];
  EXPECT_THROW(reliability_figure(metrics, 1, "r"), std::invalid_argument);
}

TEST(TrainingCurves, OnePanelPerMetricOneLinePerSeries) {
  TrainingCurves curves;
  curves.epochs = {1, 2, 3};
  curves.panels = {{"RMSE", {{"train", {3, 2, 1}}, {"test", {4, 3, 2.5}}}, ""},
                   {"log-likelihood", {{"train", {-3, -2, -1.5}}, {"test", {-4, -3, -2}}}, ""}};
  const Element root = parse(render_svg(training_curves_figure(curves)));
  EXPECT_EQ(root.with_class("g", "panel").size(), 2u);
  EXPECT_EQ(root.with_class("path", "line").size(), 4u);
  EXPECT_EQ(texts(root, "panel-title"), (std::vector<std::string>{"RMSE", "log-likelihood"}));
  const std::vector<std::string> ticks = axis_ticks(root, 'x');
  EXPECT_EQ(std::count(ticks.begin(), ticks.end(), "2"), 2);  // epoch 2 in both panels...
  EXPECT_EQ(std::find(ticks.begin(), ticks.end(), "1.5"), ticks.end());  // ...and no half epochs
  curves.panels[1].series[0].values.pop_back();
  EXPECT_THROW(training_curves_figure(curves), std::invalid_argument);
}

class WriteFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    directory_ =
        std::filesystem::temp_directory_path() / ("pbp_svg_test_" + std::to_string(::getpid()));
    std::filesystem::create_directories(directory_);
  }
  void TearDown() override { std::filesystem::remove_all(directory_); }
  std::filesystem::path directory_;
};

TEST_F(WriteFiles, WritesAndReplacesAtomically) {
  const std::string path = (directory_ / "band.svg").string();
  std::ofstream(path) << "old";
  write_band_plot(path, toy_band());
  std::stringstream written;
  written << std::ifstream(path).rdbuf();
  EXPECT_EQ(written.str(), render_svg(band_figure(toy_band())));
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(directory_),
                          std::filesystem::directory_iterator()),
            1);  // no temporary file left behind
  const std::string missing = (directory_ / "no" / "band.svg").string();
  try {
    write_band_plot(missing, toy_band());
    FAIL() << "wrote into a missing directory";
  } catch (const std::runtime_error& error) {
    EXPECT_NE(std::string(error.what()).find(missing), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace pbp::plot
