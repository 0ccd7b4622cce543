#pragma once

#include "ui/workers/ViewWorkers.h"

#include <QMutex>
#include <QObject>
#include <QThreadPool>

#include <atomic>
#include <memory>
#include <optional>
#include <type_traits>
#include <utility>

namespace attn {

// What LatestJob's jobs share with their owner: the newest request's generation, and the owner
// while it exists (the job object clears it when the owner destroys it).
class LatestJobState : public std::enable_shared_from_this<LatestJobState> {
public:
    explicit LatestJobState(QObject* owner) : m_owner(owner) {}

    quint64 generation() const { return m_generation.load(); }
    quint64 supersede() { return m_generation.fetch_add(1) + 1; }
    bool isCurrent(quint64 generation) const { return m_owner_alive.load() && generation == m_generation.load(); }
    void forgetOwner();

    // Queues `call` to the owner's thread, where it runs only if `generation` is still the newest
    // and the owner still exists. Safe from any thread.
    template <typename Call>
    void post(quint64 generation, Call call);

private:
    std::atomic<quint64> m_generation = 0;
    std::atomic<bool> m_owner_alive = true;
    QMutex m_mutex;    // held while posting, so that the owner is not forgotten meanwhile
    QObject* m_owner;  // guarded by m_mutex
};

// What a job's work sees of its request: whether a newer one has come (the work may stop early),
// and, for work that hands over several results (one per head), a way to hand each one over.
template <typename Deliver>
class JobTicket {
public:
    JobTicket(std::shared_ptr<LatestJobState> state, quint64 generation, std::shared_ptr<Deliver> deliver)
        : m_state(std::move(state)), m_generation(generation), m_deliver(std::move(deliver))
    {
    }

    quint64 generation() const { return m_generation; }
    bool isStale() const { return !m_state->isCurrent(m_generation); }

    // Hands `value` to the owner's deliver on its thread, unless a newer request came meanwhile.
    // On the synchronous path (LatestJob::computeNow) there is no deliver to hand it to.
    template <typename Value>
    void deliver(Value&& value) const
    {
        if (!m_deliver)
            return;
        auto held = std::make_shared<std::decay_t<Value>>(std::forward<Value>(value));  // posted calls are copied
        m_state->post(m_generation, [deliver = m_deliver, held] { (*deliver)(std::move(*held)); });
    }

private:
    std::shared_ptr<LatestJobState> m_state;
    quint64 m_generation;
    std::shared_ptr<Deliver> m_deliver;
};

// "The newest request wins" for one kind of work of one owner (a view, a plot, the controller).
// start() makes a request: its work runs on a worker pool (viewWorkers() unless another is
// given, see ViewWorkers.h) and its result is handed to `deliver` on the owner's thread, only if
// no newer request came meanwhile and the owner still exists. A request that is stale before its
// work starts is skipped. computeNow() runs the same work here and returns its result (exports,
// tests, small inputs), dropping whatever is under way.
//
// The work is called with a const JobTicket& and returns the result, a std::optional of it (empty:
// nothing to hand over, e.g. it stopped because the ticket went stale), or nothing (it hands its
// results over itself through the ticket). It runs off the owner's thread: it must not touch the
// owner, only what it captured by value.
class LatestJob {
public:
    explicit LatestJob(QObject* owner, QThreadPool& pool = viewWorkers());
    ~LatestJob();  // no delivery after this; work under way finishes on its own
    LatestJob(const LatestJob&) = delete;
    LatestJob& operator=(const LatestJob&) = delete;

    quint64 generation() const { return m_state->generation(); }
    bool isCurrent(quint64 generation) const { return m_state->isCurrent(generation); }

    // Makes whatever is under way stale (a new input that is drawn at once, the owner closing).
    quint64 supersede() { return m_state->supersede(); }

    // A new request: supersedes the earlier ones and starts `work` for it.
    template <typename Work, typename Deliver>
    quint64 start(Work work, Deliver deliver)
    {
        supersede();
        return startAlongside(std::move(work), std::move(deliver));
    }

    // Another job for the current request, beside those already started (the windows of one
    // matrix that a drag asks for): all are dropped together by the next request.
    template <typename Work, typename Deliver>
    quint64 startAlongside(Work work, Deliver deliver)
    {
        const quint64 generation = m_state->generation();
        auto shared_deliver = std::make_shared<Deliver>(std::move(deliver));
        m_pool.start([state = m_state, generation, work = std::move(work), shared_deliver]() mutable {
            const JobTicket<Deliver> ticket(state, generation, shared_deliver);
            if (ticket.isStale())
                return;  // a newer request is queued behind this one
            handOver(ticket, work);
        });
        return generation;
    }

    // The same work, here and now: a new request whose result is returned, not delivered.
    template <typename Work>
    auto computeNow(Work&& work)
    {
        const JobTicket<NoDeliver> ticket(m_state, supersede(), nullptr);
        return std::forward<Work>(work)(ticket);
    }

private:
    struct NoDeliver {  // computeNow's ticket: the result is returned, not handed over
        template <typename Value>
        void operator()(Value&&) const
        {
        }
    };

    template <typename Deliver, typename Work>
    static void handOver(const JobTicket<Deliver>& ticket, Work& work)
    {
        using Outcome = std::invoke_result_t<Work&, const JobTicket<Deliver>&>;
        if constexpr (std::is_void_v<Outcome>) {
            work(ticket);
        } else if constexpr (IsOptional<Outcome>::value) {
            Outcome outcome = work(ticket);
            if (outcome)
                ticket.deliver(std::move(*outcome));
        } else {
            ticket.deliver(work(ticket));
        }
    }

    template <typename T>
    struct IsOptional : std::false_type {
    };
    template <typename T>
    struct IsOptional<std::optional<T>> : std::true_type {
    };

    std::shared_ptr<LatestJobState> m_state;
    QThreadPool& m_pool;
};

template <typename Call>
void LatestJobState::post(quint64 generation, Call call)
{
    const QMutexLocker lock(&m_mutex);
    if (!m_owner || generation != m_generation.load())
        return;
    // Posted to the owner: an event still queued when the owner is destroyed is dropped with it.
    QMetaObject::invokeMethod(
        m_owner,
        [state = shared_from_this(), generation, call = std::move(call)]() mutable {
            if (state->isCurrent(generation))
                call();
        },
        Qt::QueuedConnection);
}

}  // namespace attn
