#include "core/analysis/QueryKeySpace.h"

#include <Eigen/Eigenvalues>

#include <cmath>

namespace attn {

QueryKeySpace::Normalised QueryKeySpace::normalise(const Matrix& q, const Matrix& k)
{
    Normalised out;
    out.queries = q.cast<double>();  // (T_q, D)
    out.keys = k.cast<double>();     // (T_k, D)
    if (q.rows() == 0 || k.rows() == 0 || q.cols() != k.cols())
        return out;
    const Eigen::RowVectorXd query_centroid = out.queries.colwise().mean();
    out.keys.rowwise() += query_centroid - out.keys.colwise().mean();
    const double query_norm = out.queries.rowwise().norm().mean();
    const double key_norm = out.keys.rowwise().norm().mean();
    if (query_norm > 0.0 && key_norm > 0.0) {
        out.scale = std::sqrt(key_norm / query_norm);
        out.queries *= out.scale;
        out.keys /= out.scale;
    }
    return out;
}

QueryKeyPoints QueryKeySpace::project(const Matrix& q, const Matrix& k)
{
    QueryKeyPoints points;
    const Eigen::Index num_queries = q.rows();
    const Eigen::Index num_keys = k.rows();
    const Eigen::Index dim = q.cols();
    points.queries = MatrixD::Zero(num_queries, 2);
    points.keys = MatrixD::Zero(num_keys, 2);
    if (num_queries == 0 || num_keys == 0 || dim == 0 || k.cols() != dim)
        return points;

    const Normalised normalised = normalise(q, k);
    points.scale = normalised.scale;
    MatrixD joint(num_queries + num_keys, dim);  // (T_q + T_k, D)
    joint << normalised.queries, normalised.keys;
    joint.rowwise() -= joint.colwise().mean();
    const MatrixD covariance = joint.transpose() * joint / double(joint.rows());  // (D, D)
    const Eigen::SelfAdjointEigenSolver<MatrixD> solver(covariance);
    // Eigenvalues come in increasing order: the last two columns are the principal axes.
    MatrixD axes(dim, 2);  // (D, 2)
    const double total = solver.eigenvalues().sum();
    for (int a = 0; a < 2 && a < dim; ++a) {
        Eigen::VectorXd axis = solver.eigenvectors().col(dim - 1 - a);
        Eigen::Index largest = 0;
        axis.cwiseAbs().maxCoeff(&largest);
        if (axis(largest) < 0)
            axis = -axis;
        axes.col(a) = axis;
        points.explained[a] = total > 0.0 ? solver.eigenvalues()(dim - 1 - a) / total : 0.0;
    }
    if (dim < 2)
        axes.col(1).setZero();
    const MatrixD projected = joint * axes;  // (T_q + T_k, 2)
    points.queries = projected.topRows(num_queries);
    points.keys = projected.bottomRows(num_keys);
    return points;
}

}  // namespace attn
