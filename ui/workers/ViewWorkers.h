#pragma once

class QThreadPool;

namespace attn {

// The pool the views hand their work to (reductions of heatmaps, recomputed heads, the lines'
// strongest keys, the Q-K projection, data exports), one thread per core. Not
// QThreadPool::globalInstance(): Qt's raster paint engine splits large fills into tasks on the
// global pool and waits for them, so a paint on the GUI thread waited behind whatever a view had
// queued there (most of Compare's pauses at 8,192 tokens).
QThreadPool& viewWorkers();

}  // namespace attn
