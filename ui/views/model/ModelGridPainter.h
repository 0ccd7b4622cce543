#pragma once

#include "core/analysis/AttentionThumbnail.h"
#include "core/model/ModelRun.h"
#include "ui/heatmap/ColorMaps.h"
#include "ui/heatmap/ColorScale.h"
#include "ui/views/model/HeadArrangement.h"

#include <QImage>
#include <QList>
#include <QRectF>
#include <QString>
#include <QVector>

#include <memory>
#include <optional>
#include <vector>

class QPainter;

namespace attn {

// Every layer x head of a model run as one grid of heatmap thumbnails (layers as rows "L0".., heads
// as columns "H0"..), on one colour scale with one colour bar: BertViz's "model view". The same
// code lays out and draws the widget and every exported picture.
// A thumbnail is drawn from AttentionThumbnail, the head reduced to the pixels it covers (the max
// or mean of the cells under each pixel) straight from the compact maps: no (T, T) matrix is
// built for any of the L x H heads. Reductions are kept per size until the run changes.
class ModelGridPainter {
public:
    enum class Output {
        Screen,  // each thumbnail one image of its pixels, drawn unsmoothed
        Picture  // as the other heatmaps export: vector cells up to 64 x 64 tokens, else a lossless
                 // image of a whole number of pixels per cell (or per reduced pixel)
    };
    struct Layout {
        QRectF caption;
        QRectF grid;               // the block of thumbnails
        QList<QRectF> thumbnails;  // layer-major: index layer * H + head, wherever the head order puts it
        QList<QRectF> columns;     // (H) the slots of the first layer's row, left to right
        double side = 0.0;         // of one thumbnail
        QList<int> row_labels;     // the layers labelled (thinned to what fits)
        QList<int> column_labels;  // the columns labelled
        // With an aggregate: each layer's heads fused (an extra column, L), each head fused across
        // the layers (an extra row, H; in head order only) and every head of every layer (the corner).
        QList<QRectF> layer_aggregates;
        QList<QRectF> head_aggregates;
        QRectF all_aggregate;
        QRectF color_bar;
    };

    void setRun(std::shared_ptr<const ModelRun> run);
    const std::shared_ptr<const ModelRun>& run() const { return m_run; }
    int numLayers() const { return m_run ? m_run->numLayers() : 0; }
    int numHeads() const { return m_run ? m_run->attention.numHeads() : 0; }

    void setCaption(const QString& caption) { m_caption = caption; }
    QString caption() const { return m_caption; }
    void setColorMap(ColorMaps::Map map);
    ColorMaps::Map colorMap() const { return m_map; }
    void setReduction(ThumbnailReduction reduction) { m_reduction = reduction; }
    ThumbnailReduction reduction() const { return m_reduction; }
    void setColorScale(ColorScale scale) { m_scale = scale; }
    ColorScale colorScale() const { return m_scale; }
    // Framed on screen (keyboard focus, last opened), its row and column labels coloured; -1 for none.
    void setCurrent(int layer, int head);
    int currentLayer() const { return m_current_layer; }
    int currentHead() const { return m_current_head; }
    // Heads marked by a score in [0, 1] (L x H, layer after layer; empty: none): a frame as
    // strong as the score and, where a thumbnail has room, the score written in its corner.
    void setHeadMarks(std::vector<double> scores, const QString& name) { m_arrangement.setMarks(std::move(scores), name); }
    const std::vector<double>& headMarks() const { return m_arrangement.marks(); }
    // Each layer's heads drawn in the order of a score, highest first (L x H, layer after layer; empty:
    // head order): column c of layer l shows the head with the c-th highest score, named in its corner.
    void setHeadOrder(const std::vector<double>& scores, const QString& name)
    {
        m_arrangement.setOrder(scores, name, numLayers(), numHeads());
    }
    bool isOrdered() const { return m_arrangement.isOrdered(); }
    int columnOf(int layer, int head) const { return m_arrangement.columnOf(layer, head, numHeads()); }
    int headIn(int layer, int column) const { return m_arrangement.headIn(layer, column, numHeads()); }
    // An extra column of each layer's heads fused, an extra row of each head fused across the layers,
    // and in their corner every head of every layer fused; none without a fusion.
    void setAggregate(std::optional<HeadFusion> fusion) { m_aggregate = fusion; }
    std::optional<HeadFusion> aggregate() const { return m_aggregate; }
    // Keys hidden in every thumbnail (each row renormalised over the others, AttentionDisplay's
    // rule) and marked by a pale band; positions beyond the input are ignored.
    void setHiddenKeys(const QList<int>& positions);
    const std::vector<int>& hiddenKeys() const { return m_hidden; }
    // What an aggregate thumbnail under a point shows ("mean of layer 3's heads"), empty elsewhere.
    QString aggregateAt(const QPointF& point, const QSizeF& size) const;

    Layout layoutFor(const QSizeF& size) const;
    // The (layer, head) under a point of a picture of `size`, if any.
    std::optional<std::pair<int, int>> headAt(const QPointF& point, const QSizeF& size) const;
    // `pixel_ratio`: device pixels per pixel of the target (the screen's, or a PNG's scale).
    void paint(QPainter& painter, const QRectF& target, Output output, double pixel_ratio = 1.0) const;

    // The top of the shared colour scale for thumbnails of the given reduction size (the
    // bottom is 0), and the number of pixels per side a thumbnail of `side` pixels is reduced to.
    double top(int bins) const;
    int binsFor(double side, double pixel_ratio) const;
    // The colour of a weight on a scale 0..top: one of 256 levels of the colour map; a weight above
    // the top (a one-key row) takes the top colour, a masked cell (NaN) the grey of Hatch.
    static QRgb colorOf(ColorMaps::Map map, double value, double top);
    // The masked (NaN) pixels of a thumbnail drawn in `rect`, one rectangle per run in a row: the
    // grey of colorOf, hatched over by paint as every heatmap's masked cells.
    static QList<QRectF> maskedRuns(const QRectF& rect, const AttentionThumbnail& thumbnail);
    QString scaleNote(int bins) const;

private:
    struct Reduced {
        int bins = 0;
        ThumbnailReduction reduction = ThumbnailReduction::Max;
        std::optional<HeadFusion> aggregate;
        std::vector<AttentionThumbnail> thumbnails;        // (L * H)
        std::vector<AttentionThumbnail> layer_aggregates;  // (L) with an aggregate
        std::vector<AttentionThumbnail> head_aggregates;   // (H + 1): each head, then every head of every layer
        double top_all = 0.0;
        double top_without_one_key_rows = -1.0;
        double percentile_top = -1.0;  // of every pixel; found when the percentile scale first asks
    };
    const Reduced& reduced(int bins) const;
    void updateHidden();
    // The colour level (0..255) of a reduced pixel on the chosen scale; `row_top` the largest of
    // its pixel row (the per-row scale).
    int levelFor(double value, double top, double row_top) const;
    QRgb colourFor(double value, double top, double row_top) const;
    QImage thumbnailImage(const AttentionThumbnail& thumbnail, double top, int pixels_per_cell) const;
    void paintVectorCells(QPainter& painter, const QRectF& rect, const AttentionThumbnail& thumbnail, double top) const;

    std::shared_ptr<const ModelRun> m_run;
    QString m_caption;
    ColorMaps::Map m_map = ColorMaps::Map::Viridis;
    QVector<QRgb> m_levels;  // (256) the colour map's levels
    ThumbnailReduction m_reduction = ThumbnailReduction::Max;
    ColorScale m_scale = ColorScale::WithoutOneKeyRows;
    int m_current_layer = -1;
    int m_current_head = -1;
    HeadArrangement m_arrangement;
    std::optional<HeadFusion> m_aggregate;
    QList<int> m_hidden_positions;  // as set
    std::vector<int> m_hidden;      // those inside the input, sorted, unless that is every key
    mutable std::vector<Reduced> m_cache;  // a few sizes (screen, picture) of the current run
};

}  // namespace attn
