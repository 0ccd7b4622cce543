#include "ui/views/shapes/ModelChainPainter.h"

#include "core/analysis/ShapeData.h"

#include <QFontInfo>
#include <QFontMetricsF>
#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <cmath>

namespace attn {
namespace {

const QColor kInk(0x22, 0x2b, 0x36);
const QColor kMuted(0x5f, 0x6b, 0x78);
const QColor kArrow(0x7a, 0x86, 0x93);
const QColor kBoxFill(0xf4, 0xf7, 0xfb);
const QColor kBoxEdge(0x9a, 0xa8, 0xb8);
const QColor kAttentionFill(0xe3, 0xef, 0xfd);
const QColor kAttentionEdge(0x1e, 0x88, 0xe5);
const QColor kBlockFill(0xfb, 0xfb, 0xf6);

QFont pixelFont(double pixels, bool bold = false, bool mono = false)
{
    // Named by the family it resolves to, so SVG and PDF name a real font.
    QFont font;
    if (mono)
        font.setStyleHint(QFont::Monospace);
    font.setFamily(QFontInfo(font).family());
    font.setPixelSize(std::max(6, int(std::lround(pixels))));
    font.setBold(bold);
    return font;
}

QString countText(std::int64_t value)
{
    const QString exact = ShapeData::formatCount(value);
    return value < 10000 ? exact : QStringLiteral("%1 (%2)").arg(exact, ShapeData::formatCompact(value));
}

// countText's "124,439,808 (124.4 M) params", or in a narrow box what fits of: the exact count
// alone, the compact one, the compact one elided.
QString parameterText(std::int64_t value, const QFontMetricsF& metrics, double width)
{
    const QString params = QStringLiteral(" params");
    const QStringList candidates{countText(value) + params, ShapeData::formatCount(value) + params,
                                 ShapeData::formatCompact(value) + params};
    for (const QString& text : candidates)
        if (metrics.horizontalAdvance(text) <= width)
            return text;
    return metrics.elidedText(candidates.last(), Qt::ElideRight, width);
}

// What of a word-wrapped text fits `width` wide and `room` high: the whole text, or its first
// words and "…" (the whole text is in the box's tooltip); and the height that takes.
std::pair<QString, double> wrappedToFit(const QFontMetricsF& metrics, double width, const QString& text, double room)
{
    const auto heightOf = [&](const QString& candidate) {
        return metrics.boundingRect(QRectF(0, 0, width, 1e6), Qt::TextWordWrap | Qt::AlignHCenter, candidate).height();
    };
    QString shown = text;
    double height = heightOf(text);
    QStringList words = text.split(u' ');
    while (height > room && words.size() > 1) {
        words.removeLast();
        shown = words.join(u' ') + QStringLiteral(" …");
        height = heightOf(shown);
    }
    return {shown, std::min(height, room)};
}

QString architectureName(ModelArchitecture architecture)
{
    switch (architecture) {
        case ModelArchitecture::Gpt2:
            return QStringLiteral("GPT-2");
        case ModelArchitecture::Bert:
            return QStringLiteral("BERT");
        case ModelArchitecture::DistilBert:
            return QStringLiteral("DistilBERT");
        case ModelArchitecture::Llama:
            return QStringLiteral("Llama");
        case ModelArchitecture::Qwen2:
            return QStringLiteral("Qwen2");
        case ModelArchitecture::Mistral:
            return QStringLiteral("Mistral");
        case ModelArchitecture::GptNeox:
            return QStringLiteral("GPT-NeoX");
    }
    return {};
}

// GPT-2 and the rotary decoders normalise before each sub-layer; the BERT family after it.
bool isPreNorm(const ModelConfig& config)
{
    return config.architecture == ModelArchitecture::Gpt2 || config.hasRotaryPositions();
}

// The attention box's detail: heads, grouped-query key/value heads, projections, masks.
QString attentionDetail(const ModelConfig& config)
{
    const QString mask = !config.causal              ? QString()
                         : config.sliding_window > 0 ? QStringLiteral("; causal, window %1").arg(config.sliding_window)
                                                     : QStringLiteral("; causal");
    const QString biases = config.qkv_bias && config.out_bias ? QStringLiteral(" + biases")
                           : config.qkv_bias                  ? QStringLiteral(" + q, k, v biases")
                           : config.hasRotaryPositions()      ? QString()
                                                              : QStringLiteral(" + biases");
    if (config.num_kv_heads > 0 && config.num_kv_heads < config.num_heads)
        return QStringLiteral("h = %1 heads, h_kv = %2 kv heads of d_k = %3; Wq, Wo (C, C), Wk, Wv (C, %4)%5%6")
            .arg(config.num_heads)
            .arg(config.num_kv_heads)
            .arg(config.headDim())
            .arg(config.kvDim())
            .arg(biases, mask);
    return QStringLiteral("h = %1 heads of d_k = %2; Wq, Wk, Wv, Wo (C, C)%3%4")
        .arg(config.num_heads)
        .arg(config.headDim())
        .arg(biases, mask);
}

QString activationText(Activation activation)
{
    switch (activation) {
        case Activation::Gelu:
            return QStringLiteral("GELU (erf)");
        case Activation::GeluTanh:
            return QStringLiteral("gelu_new (tanh)");
        case Activation::GeluFast:
            return QStringLiteral("gelu_fast");
        case Activation::QuickGelu:
            return QStringLiteral("quick_gelu");
        case Activation::Relu:
            return QStringLiteral("ReLU");
        case Activation::Silu:
            return QStringLiteral("SiLU");
        case Activation::Tanh:
            return QStringLiteral("tanh");
        case Activation::Sigmoid:
            return QStringLiteral("sigmoid");
        case Activation::Linear:
            return QStringLiteral("linear");
    }
    return {};
}

void drawArrow(QPainter& painter, QPointF from, QPointF to, double f)
{
    painter.save();
    painter.setRenderHint(QPainter::Antialiasing, true);
    painter.setPen(QPen(kArrow, 1.6 * f));
    const QPointF d = to - from;
    const double length = std::hypot(d.x(), d.y());
    if (length < 1e-6) {
        painter.restore();
        return;
    }
    const QPointF u = d / length;
    const QPointF n(-u.y(), u.x());
    const double head = 7 * f;
    painter.drawLine(from, to - u * head * 0.8);
    painter.setPen(Qt::NoPen);
    painter.setBrush(kArrow);
    painter.drawPolygon(QPolygonF({to, to - u * head + n * head * 0.45, to - u * head - n * head * 0.45}));
    painter.restore();
}

}  // namespace

ModelChainPainter::ModelChainPainter(const ModelConfig& config, int seq_len)
    : m_config(config), m_counts(ModelParameterCounts::of(config)), m_seq_len(seq_len)
{
    const QString t = seq_len > 0 ? QString::number(seq_len) : QStringLiteral("T");
    const QString c = QString::number(config.hidden_size);
    const QString tc = QStringLiteral("(T, C) = (%1, %2)").arg(t, c);
    const bool gpt2 = config.architecture == ModelArchitecture::Gpt2;
    m_items.append({Box::TokenIds, QStringLiteral("token ids"), QStringLiteral("(T) = (%1)").arg(t),
                    QStringLiteral("integers < V = %1").arg(ShapeData::formatCount(config.vocab_size)), 0, false});
    m_items.append({Box::WordEmbeddings,
                    gpt2 ? QStringLiteral("word embeddings wte") : QStringLiteral("word embeddings"), tc,
                    QStringLiteral("table (V, C): one row per id"), m_counts.word_embeddings, false});
    if (config.hasRotaryPositions())  // no table: positions turn Q and K inside each attention
        m_items.append({Box::PositionEmbeddings, QStringLiteral("rotary positions"), QStringLiteral("in attention"),
                        QStringLiteral("no table: Q, K turned by position (R = %1 of d_k = %2)")
                            .arg(config.rotary_dim)
                            .arg(config.headDim()),
                        0, false});
    else
        m_items.append({Box::PositionEmbeddings,
                        gpt2 ? QStringLiteral("+ positions wpe") : QStringLiteral("+ positions"), tc,
                        QStringLiteral("table (P, C), P = %1%2")
                            .arg(config.max_positions)
                            .arg(config.sinusoidal_positions ? QStringLiteral(", sinusoidal") : QString()),
                        m_counts.position_embeddings, false});
    if (m_counts.token_type_embeddings > 0)
        m_items.append({Box::TokenTypeEmbeddings, QStringLiteral("+ token types"), tc,
                        QStringLiteral("table (%1, C); all type 0").arg(config.type_vocab_size),
                        m_counts.token_type_embeddings, false});
    if (m_counts.embedding_norm > 0)
        m_items.append({Box::EmbeddingNorm, QStringLiteral("LayerNorm"), tc, QStringLiteral("γ, β (C)"),
                        m_counts.embedding_norm, false});
    // The Llama family's RMSNorm has a weight and no bias.
    const bool rms = config.isLlamaFamily();
    const QString norm_name = rms ? QStringLiteral("RMSNorm") : QStringLiteral("LayerNorm");
    const QString norm_detail = rms ? QStringLiteral("γ (C)") : QStringLiteral("γ, β (C)");
    const Item norm1{Box::AttentionNorm,
                     gpt2 ? QStringLiteral("LayerNorm ln_1") : norm_name,
                     tc,
                     norm_detail,
                     m_counts.attention_norm,
                     true};
    const Item attention{Box::Attention,          QStringLiteral("attention"), tc,
                         attentionDetail(config), m_counts.attention,          true};
    const Item residual1{
        Box::AttentionResidual, QStringLiteral("+ residual"), tc, QStringLiteral("x + attention(…)"), 0, true};
    const Item norm2{
        Box::MlpNorm, gpt2 ? QStringLiteral("LayerNorm ln_2") : norm_name, tc, norm_detail, m_counts.mlp_norm, true};
    const Item mlp{Box::Mlp,
                   QStringLiteral("MLP"),
                   tc,
                   QStringLiteral("(T, C) → (T, I = %1) → (T, C), %2%3")
                       .arg(config.intermediate_size)
                       .arg(activationText(config.activation), rms ? QStringLiteral(", gated (SwiGLU)") : QString()),
                   m_counts.mlp,
                   true};
    const Item residual2{Box::MlpResidual, QStringLiteral("+ residual"), tc, QStringLiteral("x + MLP(…)"), 0, true};
    if (isPreNorm(config))  // pre-LN: each sub-layer reads a normalised copy, the residual stream is never normalised
        m_items.append(QList<Item>{norm1, attention, residual1, norm2, mlp, residual2});
    else  // post-LN: the LayerNorm comes after each residual
        m_items.append(QList<Item>{attention, residual1, norm1, mlp, residual2, norm2});
    if (m_counts.final_norm > 0)
        m_items.append({Box::FinalNorm,
                        gpt2 ? QStringLiteral("final LayerNorm ln_f") : QStringLiteral("final ") + norm_name, tc,
                        norm_detail, m_counts.final_norm, false});
    m_items.append(
        {Box::Output, QStringLiteral("last hidden state"), tc,
         gpt2 ? QStringLiteral("LM head: the tied wte")
         : m_counts.output_head > 0
             ? QStringLiteral("LM head (V, C) untied, %1 parameters").arg(ShapeData::formatCount(m_counts.output_head))
         : config.hasRotaryPositions() ? QStringLiteral("LM head: the tied word embeddings")
                                       : QStringLiteral("the last block's output"),
         0, false});
}

void ModelChainPainter::setHovered(Box box, bool hovered)
{
    m_hovered = hovered ? int(box) : -1;
}

QString ModelChainPainter::toolTip(Box box) const
{
    for (const Item& item : m_items)
        if (item.box == box) {
            QString text = QStringLiteral("<b>%1</b><br>%2<br>%3")
                               .arg(item.name.toHtmlEscaped(), item.shape, item.detail.toHtmlEscaped());
            if (item.parameters > 0)
                text += QStringLiteral("<br>parameters: %1%2")
                            .arg(ShapeData::formatCount(item.parameters),
                                 item.in_block ? QStringLiteral(" per block") : QString());
            if (box == Box::Attention && m_interactive)
                text += QStringLiteral("<br><i>click to open the attention of the selected layer</i>");
            return text;
        }
    return {};
}

QList<ModelChainPainter::HitRegion> ModelChainPainter::paint(QPainter& painter, const QRectF& rect,
                                                             PaintTarget target) const
{
    QList<HitRegion> hits;
    // Designed at defaultSize(); a taller rectangle centres the chain.
    const double f = std::min(rect.width() / defaultSize().width(), rect.height() / defaultSize().height());
    const double spare = std::max(0.0, rect.height() - defaultSize().height() * f) / 2;
    const QRectF page = rect.adjusted(28 * f, 22 * f + spare, -28 * f, -18 * f - spare);
    painter.save();
    painter.fillRect(rect, Qt::white);
    painter.setRenderHint(QPainter::Antialiasing, true);

    // Header: title and the model's dimensions.
    const QFont title = pixelFont(21 * f, true);
    const QFont subtitle = pixelFont(12.5 * f);
    painter.setPen(kInk);
    painter.setFont(title);
    const double title_h = QFontMetricsF(title).height();
    painter.drawText(QRectF(page.left(), page.top(), page.width(), title_h), Qt::AlignLeft | Qt::AlignVCenter,
                     QStringLiteral("%1 (%2): the whole model, where every shape comes from")
                         .arg(architectureName(m_config.architecture), m_config.model_type));
    painter.setFont(subtitle);
    painter.setPen(kMuted);
    QString dims = QStringLiteral("T = %1    C = %2    h = %3    d_k = %4    I = %5    L = %6    V = %7    P = %8")
                       .arg(m_seq_len > 0 ? QString::number(m_seq_len) : QStringLiteral("T"))
                       .arg(m_config.hidden_size)
                       .arg(m_config.num_heads)
                       .arg(m_config.headDim())
                       .arg(m_config.intermediate_size)
                       .arg(m_config.num_layers)
                       .arg(ShapeData::formatCount(m_config.vocab_size))
                       .arg(m_config.max_positions);
    if (!m_caption.isEmpty())
        dims += QStringLiteral("    ·    ") + m_caption;
    const double sub_h = QFontMetricsF(subtitle).height();
    painter.drawText(QRectF(page.left(), page.top() + title_h + 2 * f, page.width(), sub_h),
                     Qt::AlignLeft | Qt::AlignVCenter,
                     QFontMetricsF(subtitle).elidedText(dims, Qt::ElideRight, page.width()));

    const QFont name_font = pixelFont(13.5 * f, true);
    const QFont shape_font = pixelFont(12 * f, false, true);
    const QFont detail_font = pixelFont(10.5 * f);
    const QFont count_font = pixelFont(11.5 * f, true);
    const double box_h = 112 * f;
    const double gap = 26 * f;
    auto drawBox = [&](const Item& item, const QRectF& box) {
        const bool attention = item.box == Box::Attention;
        const bool hovered = target == PaintTarget::Screen && int(item.box) == m_hovered;
        painter.setPen(QPen(attention ? kAttentionEdge : kBoxEdge, (attention || hovered ? 2.2 : 1.2) * f));
        painter.setBrush(attention ? kAttentionFill : kBoxFill);
        painter.drawRoundedRect(box, 7 * f, 7 * f);
        const QRectF inner = box.adjusted(7 * f, 6 * f, -7 * f, -6 * f);
        const bool hint = attention && m_interactive && target == PaintTarget::Screen;
        // The wrapped detail stops short of the hint's line, at a whole line of its own.
        const double text_bottom = inner.bottom() - (hint ? QFontMetricsF(detail_font).height() : 0.0);
        double y = inner.top();
        auto line = [&](const QFont& font, const QColor& colour, const QString& text) {
            painter.setFont(font);
            painter.setPen(colour);
            const QFontMetricsF metrics(font);
            painter.drawText(QRectF(inner.left(), y, inner.width(), metrics.height()), Qt::AlignHCenter,
                             metrics.elidedText(text, Qt::ElideRight, inner.width()));
            y += metrics.height() + 2 * f;
        };
        auto wrapped = [&](const QFont& font, const QColor& colour, const QString& text) {
            painter.setFont(font);
            painter.setPen(colour);
            const QFontMetricsF metrics(font);
            // Whole lines down to text_bottom (a quarter line of slack: a wrapped text's bounding
            // height is not an exact multiple of the line spacing).
            const double lines = std::floor(std::max(0.0, text_bottom - y) / metrics.lineSpacing());
            const auto [shown, height] =
                wrappedToFit(metrics, inner.width(), text, (lines + 0.25) * metrics.lineSpacing());
            painter.drawText(QRectF(inner.left(), y, inner.width(), height), Qt::AlignHCenter | Qt::TextWordWrap,
                             shown);
            y += height + 2 * f;
        };
        line(name_font, kInk, item.name);
        line(shape_font, kInk, item.shape);
        if (item.parameters > 0)
            line(count_font, kInk, parameterText(item.parameters, QFontMetricsF(count_font), inner.width()));
        wrapped(detail_font, kMuted, item.detail);
        if (hint) {
            painter.setFont(detail_font);
            painter.setPen(kAttentionEdge);
            painter.drawText(inner, Qt::AlignHCenter | Qt::AlignBottom,
                             QFontMetricsF(detail_font)
                                 .elidedText(QStringLiteral("click to expand"), Qt::ElideRight, inner.width()));
        }
        hits.append({box, item.box});
    };
    auto drawRow = [&](const QList<Item>& row, const QRectF& area) {
        QList<QRectF> boxes;
        const double width = (area.width() - gap * (row.size() - 1)) / std::max<qsizetype>(1, row.size());
        for (int i = 0; i < row.size(); ++i) {
            const QRectF box(area.left() + i * (width + gap), area.top(), width, box_h);
            drawBox(row[i], box);
            boxes.append(box);
            if (i > 0)
                drawArrow(painter, QPointF(box.left() - gap + 2 * f, box.center().y()),
                          QPointF(box.left() - 2 * f, box.center().y()), f);
        }
        return boxes;
    };
    QList<Item> embeddings, block, tail;
    for (const Item& item : m_items) {
        if (item.in_block)
            block.append(item);
        else if (item.box == Box::FinalNorm || item.box == Box::Output)
            tail.append(item);
        else
            embeddings.append(item);
    }
    const QFont section = pixelFont(13 * f, true);
    auto sectionTitle = [&](double top, const QString& text) {
        painter.setFont(section);
        painter.setPen(kInk);
        const double h = QFontMetricsF(section).height();
        painter.drawText(QRectF(page.left(), top, page.width(), h), Qt::AlignLeft | Qt::AlignVCenter, text);
        return top + h + 6 * f;
    };

    double top = page.top() + title_h + sub_h + 22 * f;
    top = sectionTitle(top, QStringLiteral("Embeddings: %1 parameters").arg(countText(m_counts.embeddings())));
    drawRow(embeddings, QRectF(page.left(), top, page.width(), box_h));
    const QPointF embeddings_out(page.center().x(), top + box_h);
    top += box_h + 30 * f;

    // The repeated block, framed, with its count.
    const QRectF frame(page.left() - 10 * f, top, page.width() + 20 * f, box_h + 62 * f);
    drawArrow(painter, embeddings_out, QPointF(page.center().x(), frame.top()), f);
    painter.setPen(QPen(kBoxEdge, 1.2 * f, Qt::DashLine));
    painter.setBrush(kBlockFill);
    painter.drawRoundedRect(frame, 10 * f, 10 * f);
    sectionTitle(top + 6 * f, QStringLiteral("  × L = %1 blocks (%2): %3 parameters each, %4 in all")
                                  .arg(m_config.num_layers)
                                  .arg(!isPreNorm(m_config)         ? QStringLiteral("post-LN")
                                       : m_config.parallel_residual ? QStringLiteral("pre-LN, parallel residual")
                                                                    : QStringLiteral("pre-LN"))
                                  .arg(countText(m_counts.perLayer()), countText(m_counts.layers())));
    const QList<QRectF> block_boxes = drawRow(block, QRectF(page.left(), top + 40 * f, page.width(), box_h));
    // The residual stream: each "+ residual" adds the input of its sub-layer, which starts one box
    // earlier with post-LN (attention, MLP) and two with pre-LN (LayerNorm, then attention or MLP).
    const int reach = isPreNorm(m_config) ? 2 : 1;
    for (int i = 0; i < block.size(); ++i) {
        if (block[i].box != Box::AttentionResidual && block[i].box != Box::MlpResidual)
            continue;
        const QRectF start = block_boxes[std::max(0, i - reach)];
        const double x0 = std::max(start.left() - gap / 2, frame.left() + 5 * f);
        const double below = start.bottom() + 12 * f;
        painter.save();
        painter.setRenderHint(QPainter::Antialiasing, true);
        painter.setPen(QPen(kArrow, 1.4 * f, Qt::DashLine));
        painter.setBrush(Qt::NoBrush);
        painter.drawPolyline(QPolygonF(
            {QPointF(x0, start.center().y()), QPointF(x0, below), QPointF(block_boxes[i].center().x(), below)}));
        painter.restore();
        drawArrow(painter, QPointF(block_boxes[i].center().x(), below),
                  QPointF(block_boxes[i].center().x(), block_boxes[i].bottom() + 1 * f), f);
    }
    top = frame.bottom() + 30 * f;
    drawArrow(painter, QPointF(page.center().x(), frame.bottom()), QPointF(page.center().x(), top), f);
    const double tail_width = std::min(page.width(), tail.size() * 250 * f + (tail.size() - 1) * gap);
    drawRow(tail, QRectF(page.center().x() - tail_width / 2, top, tail_width, box_h));
    top += box_h + 24 * f;

    // Totals.
    QStringList totals;
    totals << QStringLiteral("embeddings %1").arg(ShapeData::formatCount(m_counts.embeddings()))
           << QStringLiteral("%1 blocks × %2 = %3")
                  .arg(m_config.num_layers)
                  .arg(ShapeData::formatCount(m_counts.perLayer()), ShapeData::formatCount(m_counts.layers()));
    if (m_counts.final_norm > 0)
        totals << QStringLiteral("final norm %1").arg(ShapeData::formatCount(m_counts.final_norm));
    painter.setFont(pixelFont(14 * f, true));
    painter.setPen(kInk);
    const double total_h = QFontMetricsF(painter.font()).height();
    painter.drawText(QRectF(page.left(), top, page.width(), total_h), Qt::AlignLeft | Qt::AlignVCenter,
                     QStringLiteral("Total: %1 parameters  =  %2")
                         .arg(countText(m_counts.total()), totals.join(QStringLiteral("  +  "))));
    top += total_h + 4 * f;
    painter.setFont(detail_font);
    painter.setPen(kMuted);
    QString note =
        QStringLiteral("Counted as PyTorch counts the base model's parameters (buffers are not parameters).");
    if (m_counts.pooler > 0)
        note += QStringLiteral(" BERT's pooler (%1) is in its checkpoints but not computed here: with it, %2.")
                    .arg(ShapeData::formatCount(m_counts.pooler),
                         ShapeData::formatCount(m_counts.total() + m_counts.pooler));
    if (m_config.architecture == ModelArchitecture::Gpt2)
        note += QStringLiteral(" The LM head is the tied wte: no parameters of its own.");
    if (m_counts.output_head > 0)
        note +=
            QStringLiteral(
                " The untied LM head (%1) is in the checkpoint but not part of the base model: with it, "
                "%2 (the published count).")
                .arg(ShapeData::formatCount(m_counts.output_head), ShapeData::formatCount(m_counts.withOutputHead()));
    painter.drawText(QRectF(page.left(), top, page.width(), page.bottom() - top), Qt::AlignLeft | Qt::TextWordWrap,
                     note);
    painter.restore();
    return hits;
}

}  // namespace attn
