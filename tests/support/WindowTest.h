#pragma once

// The base of the suites that drive a whole MainWindow: before each test a new window on a
// settings file of its own, in a temporary folder, shown and exposed; after it, the window and
// the settings gone, and the file with them (settings are written back when destroyed, so each
// test starts from none).

#include "ui/shell/AppSettings.h"
#include "ui/shell/MainWindow.h"

#include <QFile>
#include <QObject>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

namespace attn::test {

class WindowTest : public QObject {
protected:
    // From the suite's init(); a failed check fails the test's init, so the test is skipped.
    void openWindow(QSize size = {})
    {
        QVERIFY(m_dir.isValid());
        QFile::remove(settingsPath());
        m_settings = std::make_unique<AppSettings>(settingsPath());
        m_window = std::make_unique<MainWindow>(m_settings.get());
        if (size.isValid())
            m_window->resize(size);
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
    }

    // From the suite's cleanup().
    void closeWindow()
    {
        m_window.reset();
        m_settings.reset();
        QFile::remove(settingsPath());
    }

    QString settingsPath() const { return m_dir.filePath(QStringLiteral("settings.ini")); }

    QTemporaryDir m_dir;
    std::unique_ptr<AppSettings> m_settings;
    std::unique_ptr<MainWindow> m_window;
};

}  // namespace attn::test
