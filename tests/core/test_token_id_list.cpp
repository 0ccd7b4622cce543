// TokenIdList: the ids typed for --token-ids and in the window's Token ids mode, parsed one way.
#include "core/model/TokenIdList.h"
#include "tests/support/TestSuite.h"

#include <QTest>

#include <vector>

using namespace attn;

class TestTokenIdList : public QObject {
    Q_OBJECT

private slots:
    void acceptsCommasAndSpaces_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<std::vector<int>>("ids");
        QTest::newRow("commas") << "464,3797,318" << std::vector<int>{464, 3797, 318};
        QTest::newRow("commas and spaces") << " 464, 3797 ,318 " << std::vector<int>{464, 3797, 318};
        QTest::newRow("spaces only") << "1 2\t3" << std::vector<int>{1, 2, 3};
        QTest::newRow("one id") << "0" << std::vector<int>{0};
        QTest::newRow("largest int") << "2147483647" << std::vector<int>{2147483647};
    }
    void acceptsCommasAndSpaces()
    {
        QFETCH(QString, text);
        QFETCH(std::vector<int>, ids);
        const auto parsed = TokenIdList::parse(text);
        QVERIFY2(parsed, qPrintable(parsed.error()));
        QCOMPARE(parsed.value(), ids);
        QCOMPARE(TokenIdList::parse(TokenIdList::format(ids)).value(), ids);
    }

    void refusesWhatIsNotAnId_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("message");
        QTest::newRow("empty") << "" << "no tokens (the list is empty)";
        QTest::newRow("blank") << " \t" << "no tokens (the list is empty)";
        QTest::newRow("a word") << "1,two" << "got 'two'";
        QTest::newRow("negative") << "1 -2" << "got '-2'";
        QTest::newRow("plus sign") << "+3" << "got '+3'";
        QTest::newRow("fraction") << "1.5" << "got '1.5'";
        QTest::newRow("too large") << "2147483648" << "got '2147483648'";
        QTest::newRow("empty between commas") << "1,,2" << "got ''";
        QTest::newRow("trailing comma") << "1,2," << "got ''";
    }
    void refusesWhatIsNotAnId()
    {
        QFETCH(QString, text);
        QFETCH(QString, message);
        const auto parsed = TokenIdList::parse(text);
        QVERIFY(!parsed);
        QVERIFY2(parsed.error().contains(message), qPrintable(parsed.error()));
    }
};

REGISTER_TEST_SUITE(TestTokenIdList, QCoreApplication)
#include "test_token_id_list.moc"
