#pragma once

#include <QThreadPool>

namespace attn {

// Where the views' and the controller's jobs run (LatestJob starts them on one of these).
//
// viewWorkers(): the pool most jobs share (reductions of heatmaps, recomputed heads, the lines'
// strongest keys, the Q-K projection, data exports), one thread per core. Not
// QThreadPool::globalInstance(): Qt's raster paint engine splits large fills into tasks on the
// global pool and waits for them, so a paint on the GUI thread waited behind whatever a view had
// queued there (most of Compare's pauses at 8,192 tokens).
QThreadPool& viewWorkers();

// A few threads of one owner's own, for long computations that cannot stop half-way (a model's
// head tables, a rollout, a walkthrough, a comparison, a forward pass): with one thread a newer
// request waits for the one running instead of running beside it at half the speed, and neither
// waits behind the reductions other views queue on viewWorkers(). Destroying it drops the jobs
// still queued and waits for the running ones.
class OwnWorkers : public QThreadPool {
public:
    explicit OwnWorkers(int threads = 1);
    ~OwnWorkers() override;
};

}  // namespace attn
