#include "ui/views/lens/LensPicture.h"

#include "core/lens/LogitLens.h"
#include "core/model/ModelSession.h"
#include "ui/views/ExportRequest.h"
#include "ui/views/lens/LensPainter.h"

#include <QHash>
#include <QPainter>

#include <memory>

namespace attn {

Result<HeadlessPicture> LensPicture::fromRequest(const PictureInput& input, const ExportRequest& request)
{
    if (!input.session)
        return Error{QStringLiteral("--view lens: needs the model's prediction head (--model DIR)")};
    const ModelSession& session = *input.session;
    LensRequest wanted;
    wanted.top_k = request.top_k;
    if (request.metric)
        wanted.tracked = request.metric->target;
    auto lens = LogitLens::compute(session.config(), session.model().weights(), *input.run, wanted);
    if (!lens)
        return Error{QStringLiteral("--view lens: %1").arg(lens.error())};
    auto painter = std::make_shared<LensPainter>();
    painter->setResult(std::make_shared<const LensResult>(std::move(lens).value()));
    painter->setColumns(input.labels);
    // The labels are made now: the session is only read while this function runs.
    const LensResult& result = *painter->result();
    auto label = [&session](int id) { return session.tokenLabels({session.tokenText(id)}).value(0); };
    QHash<int, QString> spelled;
    for (const LensCell& cell : result.cells)
        for (const LensEntry& entry : cell.top)
            if (!spelled.contains(entry.id))
                spelled.insert(entry.id, label(entry.id));
    if (result.tracked)
        spelled.insert(*result.tracked, label(*result.tracked));
    painter->setTokenLabel([spelled](int id) { return spelled.value(id, QString::number(id)); });
    painter->setVocabSize(session.config().vocab_size);
    painter->setShade(result.tracked ? LensPainter::Shade::TrackedP : LensPainter::Shade::TopP);
    painter->setHighlightRow(input.run->selected_layer + 1);
    painter->setPinned(result.seq_len - 1);
    painter->setCaption(input.caption);
    painter->setColorMap(request.color_map);
    return HeadlessPicture{[painter](QPainter* p, const QRectF& target) { painter->paint(*p, target); },
                           QStringLiteral("attention-lab: logit lens")};
}

}  // namespace attn
