#pragma once

// The base of the suites that open whole models in a MainWindow (test_model_window and its
// refusals): a 1200 x 800 window per test, idle before the test starts, and the steps those tests
// share.

#include "tests/support/WindowTest.h"

#include <QJsonObject>
#include <QObject>
#include <QString>

namespace attn {
class AttentionController;
}

namespace attn::test {

// What tests/fixtures/models/<name>/expected.json holds (the PyTorch reference's sentence, ids and
// attention); empty when it cannot be read.
QJsonObject expectedOf(const QString& name);

class ModelWindowTest : public WindowTest {
    Q_OBJECT

protected:
    AttentionController* controller() const;
    // Opens `dir` on `sentence` and waits for its first result.
    void open(const QString& dir, const QString& sentence);
    QString openModelDir() const;  // the folder of the model in use, empty when none

private slots:
    void init();
    void cleanup();
};

}  // namespace attn::test
