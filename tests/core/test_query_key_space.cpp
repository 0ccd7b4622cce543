#include "core/analysis/QueryKeySpace.h"
#include "tests/support/TestPaths.h"
#include "tests/support/TestSuite.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

#include <cmath>

using namespace attn;
using namespace attn::testing;

namespace {

Matrix matrixOf(const QJsonArray& rows)
{
    Matrix m(rows.size(), rows.at(0).toArray().size());
    for (int i = 0; i < m.rows(); ++i)
        for (int j = 0; j < m.cols(); ++j)
            m(i, j) = float(rows.at(i).toArray().at(j).toDouble());
    return m;
}

MatrixD softmaxRows(const MatrixD& scores)
{
    MatrixD out = scores;
    for (Eigen::Index i = 0; i < out.rows(); ++i) {
        out.row(i).array() -= out.row(i).maxCoeff();
        out.row(i) = out.row(i).array().exp().matrix();
        out.row(i) /= out.row(i).sum();
    }
    return out;
}

}  // namespace

class TestQueryKeySpace : public QObject {
    Q_OBJECT

    QJsonObject m_reference;

private slots:
    void initTestCase()
    {
        QFile file(fixturesPath("analysis/analysis_reference.json"));
        QVERIFY(file.open(QIODevice::ReadOnly));
        m_reference = QJsonDocument::fromJson(file.readAll()).object().value("query_key_space").toObject();
        QVERIFY(!m_reference.isEmpty());
    }

    // Neither change of AttentionViz's normalisation changes an attention weight.
    void normalisingKeepsTheAttention()
    {
        const Matrix q = matrixOf(m_reference.value("q").toArray());  // (7, 8)
        const Matrix k = matrixOf(m_reference.value("k").toArray());  // (9, 8)
        const QueryKeySpace::Normalised n = QueryKeySpace::normalise(q, k);
        const double root = std::sqrt(8.0);
        const MatrixD before = softmaxRows(q.cast<double>() * k.cast<double>().transpose() / root);
        const MatrixD after = softmaxRows(n.queries * n.keys.transpose() / root);
        QVERIFY((before - after).cwiseAbs().maxCoeff() < 1e-12);
        // Same centroid, same mean norm.
        QVERIFY((n.queries.colwise().mean() / n.scale - n.keys.colwise().mean() * n.scale).norm() < 1e-12);
        QVERIFY(std::abs(n.queries.rowwise().norm().mean() - n.keys.rowwise().norm().mean()) < 1e-12);
    }

    // The same numbers as numpy (make_analysis_reference.py: the same normalisation, eigh, the same
    // sign rule), from the same float32 inputs computed in double: within 1e-9.
    void matchesTheReference()
    {
        const QueryKeyPoints points = QueryKeySpace::project(matrixOf(m_reference.value("q").toArray()),
                                                             matrixOf(m_reference.value("k").toArray()));
        QVERIFY(std::abs(points.scale - m_reference.value("scale").toDouble()) < 1e-12);
        for (int a = 0; a < 2; ++a)
            QVERIFY(std::abs(points.explained[a] - m_reference.value("explained").toArray().at(a).toDouble()) < 1e-9);
        const auto compare = [](const MatrixD& got, const QJsonArray& want) {
            double worst = 0.0;
            for (int i = 0; i < got.rows(); ++i)
                for (int a = 0; a < 2; ++a)
                    worst = std::max(worst, std::abs(got(i, a) - want.at(i).toArray().at(a).toDouble()));
            return worst;
        };
        QCOMPARE(points.queries.rows(), 7);
        QCOMPARE(points.keys.rows(), 9);
        QVERIFY(compare(points.queries, m_reference.value("queries").toArray()) < 1e-9);
        QVERIFY(compare(points.keys, m_reference.value("keys").toArray()) < 1e-9);
        QVERIFY(points.explained[0] >= points.explained[1]);
    }

    // Vectors that already lie in a plane keep their distances in the picture.
    void aPlaneIsDrawnWithoutDistortion()
    {
        Matrix q(3, 4), k(3, 4);
        q << 1, 0, 0, 0, 0, 2, 0, 0, 1, 1, 0, 0;
        k << 2, 1, 0, 0, 1, 3, 0, 0, 0, 0, 0, 0;
        const QueryKeySpace::Normalised n = QueryKeySpace::normalise(q, k);
        const QueryKeyPoints points = QueryKeySpace::project(q, k);
        MatrixD all(6, 4), flat(6, 2);
        all << n.queries, n.keys;
        flat << points.queries, points.keys;
        for (int i = 0; i < 6; ++i)
            for (int j = 0; j < 6; ++j)
                QVERIFY(std::abs((all.row(i) - all.row(j)).norm() - (flat.row(i) - flat.row(j)).norm()) < 1e-12);
    }
};

REGISTER_TEST_SUITE(TestQueryKeySpace, NoApplication)
#include "test_query_key_space.moc"
