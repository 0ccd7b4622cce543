# Sourced by the build scripts: compile through ccache when it is installed (bootstrap.sh
# installs it), with paths taken relative to the checkout so that another clone of the same
# commit, such as CI's, reuses the objects. Sets launcher=(...) for cmake's configure line.
launcher=()
if command -v ccache >/dev/null; then
  export CCACHE_BASEDIR="$PWD"
  export CCACHE_NOHASHDIR=true
  export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-8G}
  export CCACHE_SLOPPINESS=${CCACHE_SLOPPINESS:-pch_defines,time_macros,include_file_mtime,include_file_ctime}
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
