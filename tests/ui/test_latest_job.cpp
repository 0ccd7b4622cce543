// LatestJob, "the newest request wins": of overlapping requests only the newest is handed over,
// on the owner's thread; a request already stale when its turn comes is skipped; nothing is
// handed to an owner that is gone; computeNow gives what the worker gives.
#include "tests/support/TestSuite.h"
#include "ui/workers/LatestJob.h"
#include "ui/workers/ViewWorkers.h"

#include <QScopeGuard>
#include <QSemaphore>
#include <QThread>
#include <QtTest>

#include <atomic>
#include <memory>
#include <optional>
#include <vector>

using namespace attn;

namespace {

// What a test's owner was handed, and on which thread.
struct Delivered {
    std::vector<int> values;
    bool on_owner_thread = true;
};

class Owner : public QObject {
public:
    explicit Owner(QThreadPool& pool) : job(this, pool) {}
    LatestJob job;
};

// Holds the jobs until the test lets them finish.
using Gate = QSemaphore;

// A job that waits until the test lets it finish, then returns `value` squared.
auto gatedSquare(std::shared_ptr<Gate> gate, int value, std::shared_ptr<std::atomic<int>> started = nullptr)
{
    return [gate, value, started](const auto&) {
        if (started)
            ++*started;
        gate->acquire();
        return value * value;
    };
}

auto collect(std::shared_ptr<Delivered> delivered, QObject* owner)
{
    return [delivered, owner](int value) {
        delivered->values.push_back(value);
        delivered->on_owner_thread = delivered->on_owner_thread && QThread::currentThread() == owner->thread();
    };
}

// Until `pool` is idle and the events it posted have been handled.
void settle(QThreadPool& pool)
{
    QVERIFY(pool.waitForDone(10000));
    QCoreApplication::processEvents();
    QCoreApplication::processEvents();
}

}  // namespace

class TestLatestJob : public QObject {
    Q_OBJECT

private slots:
    void newestOfOverlappingRequestsWins()
    {
        QThreadPool pool;
        pool.setMaxThreadCount(4);  // the requests run side by side
        Owner owner(pool);
        auto delivered = std::make_shared<Delivered>();
        auto gate = std::make_shared<Gate>();
        const auto let_go = qScopeGuard([gate] { gate->release(1000); });  // a failed test ends before the pool
        auto started = std::make_shared<std::atomic<int>>(0);
        for (int value = 1; value <= 3; ++value) {
            owner.job.start(gatedSquare(gate, value, started), collect(delivered, &owner));
            QTRY_COMPARE(started->load(), value);  // running before the next request
        }
        gate->release(3);  // all three finish; the first two are stale by then
        settle(pool);
        QCOMPARE(delivered->values, std::vector<int>{9});
        QVERIFY(delivered->on_owner_thread);
    }

    void staleRequestIsSkippedBeforeItStarts()
    {
        OwnWorkers pool(1);  // a newer request waits for the one running
        Owner owner(pool);
        auto delivered = std::make_shared<Delivered>();
        auto gate = std::make_shared<Gate>();
        const auto let_go = qScopeGuard([gate] { gate->release(1000); });  // a failed test ends before the pool
        auto started = std::make_shared<std::atomic<int>>(0);
        owner.job.start(gatedSquare(gate, 2, started), collect(delivered, &owner));
        QTRY_COMPARE(started->load(), 1);
        owner.job.start(gatedSquare(gate, 3, started), collect(delivered, &owner));  // queued, then stale
        owner.job.start(gatedSquare(gate, 4, started), collect(delivered, &owner));
        gate->release(3);
        settle(pool);
        QCOMPARE(started->load(), 2);  // the running one and the newest
        QCOMPARE(delivered->values, std::vector<int>{16});
    }

    void resultOfASupersededRequestIsDropped()
    {
        QThreadPool pool;
        Owner owner(pool);
        auto delivered = std::make_shared<Delivered>();
        owner.job.start([](const auto&) { return 5; }, collect(delivered, &owner));
        QVERIFY(pool.waitForDone(10000));  // its result is queued to the owner
        owner.job.supersede();             // e.g. a small input drawn at once
        QCoreApplication::processEvents();
        QVERIFY(delivered->values.empty());
    }

    void nothingIsDeliveredAfterTheOwnerIsDestroyed()
    {
        QThreadPool pool;
        auto delivered = std::make_shared<Delivered>();
        auto gate = std::make_shared<Gate>();
        const auto let_go = qScopeGuard([gate] { gate->release(1000); });  // a failed test ends before the pool
        auto started = std::make_shared<std::atomic<int>>(0);
        // Destroyed while the work runs.
        auto* running = new Owner(pool);
        running->job.start(gatedSquare(gate, 6, started), collect(delivered, running));
        QTRY_COMPARE(started->load(), 1);
        delete running;
        gate->release();
        settle(pool);
        // Destroyed with the result queued to it, before the event loop hands it over.
        auto* queued = new Owner(pool);
        queued->job.start([](const auto&) { return 7; }, collect(delivered, queued));
        QVERIFY(pool.waitForDone(10000));
        delete queued;
        QCoreApplication::processEvents();
        QVERIFY(delivered->values.empty());
    }

    void computeNowGivesWhatTheWorkerGives()
    {
        QThreadPool pool;
        Owner owner(pool);
        auto delivered = std::make_shared<Delivered>();
        const auto work = [](const auto& ticket) { return int(ticket.generation() > 0) * 1234; };
        owner.job.start(work, collect(delivered, &owner));
        settle(pool);
        QCOMPARE(delivered->values, std::vector<int>{1234});
        QCOMPARE(owner.job.computeNow(work), 1234);
    }

    void computeNowDropsTheJobUnderWay()
    {
        QThreadPool pool;
        Owner owner(pool);
        auto delivered = std::make_shared<Delivered>();
        auto gate = std::make_shared<Gate>();
        const auto let_go = qScopeGuard([gate] { gate->release(1000); });  // a failed test ends before the pool
        auto started = std::make_shared<std::atomic<int>>(0);
        owner.job.start(gatedSquare(gate, 8, started), collect(delivered, &owner));
        QTRY_COMPARE(started->load(), 1);
        QCOMPARE(owner.job.computeNow([](const auto&) { return 11; }), 11);
        gate->release();
        settle(pool);
        QVERIFY(delivered->values.empty());
    }

    void workHandsOverSeveralResultsOrNone()
    {
        QThreadPool pool;
        Owner owner(pool);
        auto delivered = std::make_shared<Delivered>();
        owner.job.start(
            [](const auto& ticket) {
                for (int part = 0; part < 3 && !ticket.isStale(); ++part)
                    ticket.deliver(part);
            },
            collect(delivered, &owner));
        settle(pool);
        QCOMPARE(delivered->values, (std::vector<int>{0, 1, 2}));
        owner.job.start([](const auto&) { return std::optional<int>(); }, collect(delivered, &owner));
        settle(pool);
        QCOMPARE(delivered->values.size(), size_t(3));  // an empty optional hands nothing over
    }

    void jobsAlongsideShareTheirRequest()
    {
        QThreadPool pool;
        Owner owner(pool);
        auto delivered = std::make_shared<Delivered>();
        owner.job.start([](const auto&) { return 1; }, collect(delivered, &owner));
        owner.job.startAlongside([](const auto&) { return 2; }, collect(delivered, &owner));
        settle(pool);
        std::sort(delivered->values.begin(), delivered->values.end());
        QCOMPARE(delivered->values, (std::vector<int>{1, 2}));
    }
};

REGISTER_TEST_SUITE(TestLatestJob, QApplication)
#include "test_latest_job.moc"
