# Read by cpack before it packages anything (CPACK_PROJECT_CONFIG_FILE in CMakeLists.txt).
if(CPACK_ATTENTION_LAB_NATIVE)
  message(FATAL_ERROR
    "this build folder compiles for this machine's processor only (-march=native), so its "
    "package would stop with 'illegal instruction' elsewhere: package a build configured with "
    "-DATTENTION_LAB_NATIVE=OFF, as scripts/package-deb.sh does")
endif()
