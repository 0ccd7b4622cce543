// Installs the build with `cmake --install` into a temporary prefix, as a packager or a user does,
// then checks what a Linux desktop reads from it: the program, the .desktop entry (validated by
// desktop-file-validate), the icon in every size, the AppStream metainfo (validated by
// appstreamcli) and the man page, all named after one application id and consistent with each
// other and with the program, and the documentation Help › User guide opens. The validators come from Debian's desktop-file-utils and appstream
// (scripts/bootstrap.sh installs them); without them those two checks are skipped.
#include "tests/support/TestPaths.h"
#include "tests/support/TestSuite.h"
#include "ui/shell/UserGuide.h"

#include <QDir>
#include <QDirIterator>
#include <QImage>
#include <QProcess>
#include <QRegularExpression>
#include <QSet>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QXmlStreamReader>
#include <QtTest>

using namespace attn::testing;

namespace {

const QString kAppId = QStringLiteral(ATTENTION_LAB_APP_ID);
const QList<int> kIconSizes = {16, 22, 24, 32, 48, 64, 128, 256, 512};

struct Run {
    int exit_code = -1;  // -1: did not start or finish in time, -2: crashed
    QByteArray out;
    QByteArray err;
};

Run run(const QString& program, const QStringList& arguments)
{
    QProcess process;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("QT_QPA_PLATFORM", "offscreen");
    process.setProcessEnvironment(env);
    process.start(program, arguments);
    if (!process.waitForFinished(120000))
        return {};
    return {process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -2, process.readAllStandardOutput(),
            process.readAllStandardError()};
}

QByteArray readAll(const QString& path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

QString pngPath(int size)
{
    return QStringLiteral("share/icons/hicolor/%1x%1/apps/%2.png").arg(size).arg(kAppId);
}

// Every file the install puts under the prefix, relative to it: this and nothing else.
QStringList expectedFiles()
{
    QStringList files = {
        QStringLiteral("bin/attention-lab"),
        QStringLiteral("share/applications/%1.desktop").arg(kAppId),
        QStringLiteral("share/metainfo/%1.metainfo.xml").arg(kAppId),
        QStringLiteral("share/icons/hicolor/scalable/apps/%1.svg").arg(kAppId),
        QStringLiteral("share/doc/attention-lab/copyright"),
    };
    for (int size : kIconSizes)
        files.append(pngPath(size));
    if (ATTENTION_LAB_MAN_PAGE)
        files.append(QStringLiteral("share/man/man1/attention-lab.1"));
    // The documentation Help › User guide opens: the README and docs/ with its pictures.
    files.append(QStringLiteral("share/doc/attention-lab/README.md"));
    const QDir docs(sourcePath("docs"));
    QDirIterator doc(docs.path(), {"*.md", "*.png", "*.svg"}, QDir::Files, QDirIterator::Subdirectories);
    while (doc.hasNext())
        files.append(QStringLiteral("share/doc/attention-lab/docs/") + docs.relativeFilePath(doc.next()));
    files.sort();
    return files;
}

// The entries of the [Desktop Entry] group (QSettings would take the ';' of lists apart).
QHash<QString, QString> desktopEntry(const QString& path)
{
    QHash<QString, QString> entry;
    bool in_group = false;
    for (const QByteArray& raw : readAll(path).split('\n')) {
        const QString line = QString::fromUtf8(raw).trimmed();
        if (line.startsWith(u'['))
            in_group = line == QStringLiteral("[Desktop Entry]");
        else if (in_group && line.contains(u'='))
            entry.insert(line.section(u'=', 0, 0), line.section(u'=', 1));
    }
    return entry;
}

// The paragraphs of a Debian machine-readable copyright file: each a field → value table, the
// continuation lines of a field joined to its value with newlines.
QList<QHash<QString, QString>> copyrightParagraphs(const QByteArray& text)
{
    QList<QHash<QString, QString>> paragraphs(1);
    QString field;
    for (const QByteArray& raw : text.split('\n')) {
        const QString line = QString::fromUtf8(raw);
        if (line.trimmed().isEmpty()) {
            if (!paragraphs.last().isEmpty())
                paragraphs.append(QHash<QString, QString>());
        } else if (line.startsWith(u' ')) {
            paragraphs.last()[field] += u'\n' + line.trimmed();
        } else {
            field = line.section(u':', 0, 0);
            paragraphs.last().insert(field, line.section(u':', 1).trimmed());
        }
    }
    if (paragraphs.last().isEmpty())
        paragraphs.removeLast();
    return paragraphs;
}

}  // namespace

class TestInstall : public QObject {
    Q_OBJECT

    QTemporaryDir m_prefix;

    QString installed(const QString& relative) const { return m_prefix.filePath(relative); }
    QString desktopFile() const { return installed(QStringLiteral("share/applications/%1.desktop").arg(kAppId)); }
    QString metainfoFile() const { return installed(QStringLiteral("share/metainfo/%1.metainfo.xml").arg(kAppId)); }

private slots:
    void initTestCase()
    {
        QVERIFY(m_prefix.isValid());
        const Run install = run(requiredEnvironment("ATTENTION_CMAKE_COMMAND"),
                                {"--install", requiredEnvironment("ATTENTION_BUILD_DIR"), "--prefix", m_prefix.path()});
        QVERIFY2(install.exit_code == 0, (install.out + install.err).constData());
    }

    void installsTheDesktopLayout_data()
    {
        QTest::addColumn<QString>("file");
        for (const QString& file : expectedFiles())
            QTest::newRow(qPrintable(file)) << file;
    }

    void installsTheDesktopLayout()
    {
        QFETCH(QString, file);
        const QFileInfo info(installed(file));
        QVERIFY2(info.isFile(), qPrintable(file + " is not installed"));
        QVERIFY2(info.size() > 0, qPrintable(file + " is empty"));
    }

    // No static library, header, test or leftover of an earlier build.
    void installsNothingElse()
    {
        QStringList files;
        QDirIterator it(m_prefix.path(), QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
        while (it.hasNext())
            files.append(QDir(m_prefix.path()).relativeFilePath(it.next()));
        files.sort();
        QCOMPARE(files, expectedFiles());
    }

    void installedProgramRuns()
    {
        const QString program = installed("bin/attention-lab");
        QVERIFY(QFileInfo(program).isExecutable());
        const Run version = run(program, {"--version"});
        QVERIFY2(version.exit_code == 0, version.err.constData());
        QCOMPARE(version.out, QByteArray("attention-lab " ATTENTION_LAB_VERSION "\n"));
    }

    // Help › User guide of the installed program finds the installed guide (the checkout's only
    // from a build folder).
    void installedProgramFindsItsUserGuide()
    {
        const QString guide = installed(QStringLiteral("share/doc/attention-lab/docs/window.md"));
        QVERIFY(QFileInfo(guide).isFile());
        QCOMPARE(readAll(guide), readAll(sourcePath("docs/window.md")));
        QCOMPARE(attn::UserGuide::locate(installed(QStringLiteral("bin"))), QFileInfo(guide).canonicalFilePath());
        QVERIFY(attn::UserGuide::missingText(installed(QStringLiteral("bin"))).contains(QDir::cleanPath(guide)));
    }

    void scalableIconIsTheSource()
    {
        const QString source = sourcePath("resources/icons/%1.svg").arg(kAppId);
        const QByteArray svg =
            readAll(installed(QStringLiteral("share/icons/hicolor/scalable/apps/%1.svg").arg(kAppId)));
        QVERIFY(svg.contains("<svg"));
        QCOMPARE(svg, readAll(source));
    }

    void pngIconsAreRenderedAtTheirSize_data()
    {
        QTest::addColumn<int>("size");
        for (int size : kIconSizes)
            QTest::newRow(qPrintable(QStringLiteral("%1 px").arg(size))) << size;
    }

    void pngIconsAreRenderedAtTheirSize()
    {
        QFETCH(int, size);
        const QImage image(installed(pngPath(size)));
        QCOMPARE(image.size(), QSize(size, size));
        QVERIFY(image.hasAlphaChannel());
        // The tile's rounded corner is transparent, its middle drawn and opaque. Tolerance: at
        // 16 px the arc (radius 3 px) still grazes the corner pixel, alpha 9 of 255.
        QVERIFY2(qAlpha(image.pixel(0, 0)) < 32, qPrintable(QString::number(qAlpha(image.pixel(0, 0)))));
        QCOMPARE(qAlpha(image.pixel(size / 2, size / 2)), 255);
    }

    // The SVG is drawn on a 16-unit grid with every cell edge on a whole unit, so at 16 px each
    // 3 x 3 cell of the heatmap is 9 pixels of exactly its colour: nothing blurred.
    void iconIsSharpAt16Pixels()
    {
        const QImage image = QImage(installed(pngPath(16))).convertToFormat(QImage::Format_ARGB32);
        QCOMPARE(image.size(), QSize(16, 16));
        QCOMPARE(image.pixel(2, 2), qRgb(0xfd, 0xe7, 0x25));  // query 0 -> key 0, weight 1: viridis' top
        for (int query = 0; query < 4; ++query) {
            for (int key = 0; key <= query; ++key) {
                const QRgb first = image.pixel(2 + 3 * key, 2 + 3 * query);
                QCOMPARE(qAlpha(first), 255);
                for (int y = 0; y < 3; ++y)
                    for (int x = 0; x < 3; ++x)
                        QCOMPARE(image.pixel(2 + 3 * key + x, 2 + 3 * query + y), first);
            }
        }
    }

    void desktopFileIsValid()
    {
        const QString validator = QStandardPaths::findExecutable("desktop-file-validate");
        if (validator.isEmpty())
            QSKIP("desktop-file-validate not found (Debian: apt-get install desktop-file-utils)");
        const Run validate = run(validator, {desktopFile()});
        QVERIFY2(validate.exit_code == 0, (validate.out + validate.err).constData());
        // Not even a warning or a hint.
        QVERIFY2(validate.out.isEmpty() && validate.err.isEmpty(), (validate.out + validate.err).constData());
    }

    // The menu entry starts the installed program and shows the installed icon.
    void desktopFileStartsTheInstalledProgram()
    {
        const QHash<QString, QString> entry = desktopEntry(desktopFile());
        QCOMPARE(entry.value("Type"), QStringLiteral("Application"));
        const QString exec = entry.value("Exec");
        // The program takes no file argument, so no field code such as %f.
        QVERIFY2(!exec.contains(u'%'), qPrintable(exec));
        const QString program = exec.section(u' ', 0, 0);
        QVERIFY2(QFileInfo(installed("bin/" + program)).isExecutable(), qPrintable(exec));
        QCOMPARE(entry.value("Icon"), kAppId);
        QCOMPARE(entry.value("Terminal"), QStringLiteral("false"));
        // On X11 the window's WM_CLASS is the program's name; a dock matches it to this entry.
        QCOMPARE(entry.value("StartupWMClass"), program);
    }

    void metainfoIsValid()
    {
        const QString validator = QStandardPaths::findExecutable("appstreamcli");
        if (validator.isEmpty())
            QSKIP("appstreamcli not found (Debian: apt-get install appstream)");
        // --strict: infos and warnings fail too; --no-net: nothing is fetched (no network here).
        const Run validate = run(validator, {"validate", "--no-net", "--strict", metainfoFile()});
        QVERIFY2(validate.exit_code == 0, (validate.out + validate.err).constData());
    }

    void metainfoDescribesThisProgram()
    {
        QFile file(metainfoFile());
        QVERIFY(file.open(QIODevice::ReadOnly));
        QXmlStreamReader xml(&file);
        QString id, launchable, binary, icon, first_release, project_license;
        QStringList screenshots;
        QList<QSize> screenshot_sizes;
        while (!xml.atEnd()) {
            if (xml.readNext() != QXmlStreamReader::StartElement)
                continue;
            const auto name = xml.name();
            if (name == u"id") {
                id = xml.readElementText();
            } else if (name == u"launchable") {
                launchable = xml.readElementText();
            } else if (name == u"project_license") {
                project_license = xml.readElementText();
            } else if (name == u"binary") {
                binary = xml.readElementText();
            } else if (name == u"icon") {
                icon = xml.readElementText();
            } else if (name == u"release" && first_release.isEmpty()) {
                first_release = xml.attributes().value("version").toString();
            } else if (name == u"image") {
                const auto attributes = xml.attributes();
                screenshot_sizes.append({attributes.value("width").toInt(), attributes.value("height").toInt()});
                screenshots.append(xml.readElementText());
            }
        }
        QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
        QCOMPARE(id, kAppId);
        QCOMPARE(launchable, kAppId + ".desktop");
        QCOMPARE(icon, kAppId);
        QCOMPARE(binary, QStringLiteral("attention-lab"));
        QVERIFY2(QFileInfo(installed("bin/" + binary)).isExecutable(), qPrintable(binary));
        // QCustomPlot, which the program links, is GPL-3.0-or-later: so is the program.
        QCOMPARE(project_license, QStringLiteral("GPL-3.0-or-later"));
        // The newest release (listed first) is the version the program reports.
        QCOMPARE(first_release, QStringLiteral(ATTENTION_LAB_VERSION));
        // The screenshots are the window as the program draws it (scripts/make_readme_images.sh),
        // published from docs/images/ at the size the metainfo says.
        QVERIFY(!screenshots.isEmpty());
        for (qsizetype i = 0; i < screenshots.size(); ++i) {
            const QString name = screenshots[i].section(u'/', -1);
            QVERIFY2(name.startsWith("window-"), qPrintable(screenshots[i]));
            const QImage image(sourcePath("docs/images/") + name);
            QVERIFY2(!image.isNull(), qPrintable(name + " is not in docs/images"));
            QCOMPARE(image.size(), screenshot_sizes[i]);
        }
    }

    // share/doc/attention-lab/copyright in Debian's machine-readable format: the program
    // GPL-3+, the vocabularies of the source tree under their own licences, every licence named
    // with its text, every file named there present in the sources.
    void copyrightFileListsEveryLicence()
    {
        const auto paragraphs = copyrightParagraphs(readAll(installed("share/doc/attention-lab/copyright")));
        QVERIFY(paragraphs.size() >= 4);
        QCOMPARE(paragraphs.first().value("Format"),
                 QStringLiteral("https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/"));
        QCOMPARE(paragraphs.first().value("Upstream-Name"), QStringLiteral("attention-lab"));
        QHash<QString, QString> license_of;  // file pattern → short licence name
        QSet<QString> named, given;
        for (const auto& paragraph : paragraphs.mid(1)) {
            const QString license = paragraph.value("License");
            QVERIFY(!license.isEmpty());
            const QString short_name = license.section(u'\n', 0, 0);
            if (!paragraph.contains("Files")) {
                QVERIFY2(license.count(u'\n') >= 5, qPrintable(short_name + " has no text"));
                given.insert(short_name);
                continue;
            }
            QVERIFY(!paragraph.value("Copyright").isEmpty());
            named.insert(short_name);
            for (const QString& pattern :
                 paragraph.value("Files").split(QRegularExpression("\\s+"), Qt::SkipEmptyParts)) {
                license_of.insert(pattern, short_name);
                if (pattern != u"*")
                    QVERIFY2(QFileInfo::exists(sourcePath("") + pattern), qPrintable(pattern));
            }
        }
        QCOMPARE(named, given);
        QCOMPARE(license_of.value("*"), QStringLiteral("GPL-3+"));
        QCOMPARE(license_of.value("tests/data/vocab/gpt2/vocab.json"), QStringLiteral("Expat"));
        QCOMPARE(license_of.value("tests/data/vocab/gpt2/merges.txt"), QStringLiteral("Expat"));
        QCOMPARE(license_of.value("tests/data/vocab/bert-base-uncased/vocab.txt"), QStringLiteral("Apache-2.0"));
        // LICENSE in the sources is the full text of that licence.
        const QByteArray full_text = readAll(sourcePath("LICENSE"));
        QVERIFY(full_text.contains("GNU GENERAL PUBLIC LICENSE"));
        QVERIFY(full_text.contains("Version 3, 29 June 2007"));
        QVERIFY(full_text.contains("END OF TERMS AND CONDITIONS"));
    }

    // The man page is made from --help: every option the program lists is in it.
    void manPageListsEveryOption()
    {
        if (!ATTENTION_LAB_MAN_PAGE)
            QSKIP("help2man was not found when the build was configured: no man page");
        const QString page = QString::fromUtf8(readAll(installed("share/man/man1/attention-lab.1")));
        QVERIFY2(page.contains(QStringLiteral(".TH ATTENTION-LAB \"1\"")), qPrintable(page.left(400)));
        QVERIFY(page.contains(QStringLiteral("attention-lab " ATTENTION_LAB_VERSION)));
        const Run help = run(installed("bin/attention-lab"), {"--help"});
        QVERIFY2(help.exit_code == 0, help.err.constData());
        static const QRegularExpression option(QStringLiteral("--[a-z][a-z-]*"));
        int options = 0;
        for (auto match = option.globalMatch(QString::fromUtf8(help.out)); match.hasNext(); ++options) {
            const QString name = match.next().captured();
            QVERIFY2(page.contains(QString(name).replace(u'-', QStringLiteral("\\-"))), qPrintable(name));
        }
        QVERIFY2(options >= 20, "--help lists too few options");
    }
};

REGISTER_TEST_SUITE(TestInstall, QCoreApplication)
#include "test_install.moc"
