#include "tests/ui/ModelWindowTest.h"

#include "core/model/ModelSession.h"
#include "tests/support/ModelFolders.h"
#include "ui/controller/AttentionController.h"

#include <QFile>
#include <QJsonDocument>
#include <QLineEdit>

namespace attn::test {

QJsonObject expectedOf(const QString& name)
{
    QFile file(testing::modelFixture(name) + "/expected.json");
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(file.readAll()).object();
}

AttentionController* ModelWindowTest::controller() const
{
    return m_window->controller();
}

void ModelWindowTest::open(const QString& dir, const QString& sentence)
{
    m_window->sentenceEdit()->setText(sentence);
    m_window->openModelFolder(dir);
    controller()->waitForIdle();
}

QString ModelWindowTest::openModelDir() const
{
    return controller()->model() ? controller()->model()->dir() : QString();
}

void ModelWindowTest::init()
{
    openWindow(QSize(1200, 800));
    if (QTest::currentTestFailed())
        return;
    controller()->waitForIdle();
}

void ModelWindowTest::cleanup()
{
    closeWindow();
}

}  // namespace attn::test
