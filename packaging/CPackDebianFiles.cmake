# Run by cpack on the staged files, before it builds the package (CPACK_PRE_BUILD_SCRIPTS in
# CMakeLists.txt): what Debian's policy asks of a binary package beyond `cmake --install`.
set(staged "${CPACK_TEMPORARY_INSTALL_DIRECTORY}${CPACK_PACKAGING_INSTALL_PREFIX}")
if(NOT IS_DIRECTORY "${staged}/bin")
  message(FATAL_ERROR "CPackDebianFiles: no staged files in ${staged}")
endif()

# Man pages compressed (gzip -9n: no name or time stamp, so the same input gives the same bytes).
file(GLOB man_pages "${staged}/share/man/man*/*.[1-9]")
foreach(page IN LISTS man_pages)
  execute_process(COMMAND gzip -9nf "${page}" COMMAND_ERROR_IS_FATAL ANY)
endforeach()

# The Debian changelog of this build. The time is SOURCE_DATE_EPOCH's when it is set.
string(TIMESTAMP now "%a, %d %b %Y %H:%M:%S +0000" UTC)
set(doc "${staged}/share/doc/${CPACK_PACKAGE_NAME}")
file(MAKE_DIRECTORY "${doc}")
file(WRITE "${doc}/changelog.Debian"
     "${CPACK_PACKAGE_NAME} (${CPACK_PACKAGE_VERSION}-${CPACK_DEBIAN_PACKAGE_RELEASE}) bookworm; urgency=medium\n\n"
     "  * Built from the attention-lab sources with CPack (scripts/package-deb.sh).\n\n"
     " -- ${CPACK_DEBIAN_PACKAGE_MAINTAINER}  ${now}\n")
execute_process(COMMAND gzip -9nf "${doc}/changelog.Debian" COMMAND_ERROR_IS_FATAL ANY)
