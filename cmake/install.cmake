# Installation (cmake --install build [--prefix P]), after the way SUNDIALS and GSL install:
#   lib/libpenlim.so.MAJOR.MINOR.PATCH (SONAME libpenlim.so.MAJOR.MINOR before 1.0, libpenlim.so.MAJOR from
#   1.0 on: CMakeLists.txt) and lib/libpenlim.a
#   include/penlim/*.h                 the public headers (penlim.h includes them all)
#   bin/penlim                         the program
#   lib/cmake/penlim/                  find_package(penlim): penlim::penlim (the shared library),
#                                      penlim::headers (the headers alone, for a model)
#   lib/pkgconfig/penlim.pc            pkg-config --cflags --libs penlim (--static for libpenlim.a)
#   share/penlim/plots/*.gp            the gnuplot scripts (the program carries its own copy)
#   share/penlim/examples/             the examples of examples/
include(CMakePackageConfigHelpers)

install(TARGETS penlim_shared penlim_headers EXPORT penlimTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
set_target_properties(penlim_shared PROPERTIES EXPORT_NAME penlim)
install(FILES $<TARGET_FILE:penlim_core> DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS penlim RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${CMAKE_SOURCE_DIR}/include/penlim DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.h")
install(FILES ${PENLIM_PLOT_SCRIPTS} DESTINATION ${CMAKE_INSTALL_DATADIR}/penlim/plots)
install(DIRECTORY ${CMAKE_SOURCE_DIR}/examples/ DESTINATION ${CMAKE_INSTALL_DATADIR}/penlim/examples
        PATTERN "build*" EXCLUDE)

set(PENLIM_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/penlim)
install(EXPORT penlimTargets NAMESPACE penlim:: DESTINATION ${PENLIM_CMAKE_DIR})
configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/penlimConfig.cmake.in
                              ${CMAKE_BINARY_DIR}/penlimConfig.cmake INSTALL_DESTINATION ${PENLIM_CMAKE_DIR})
# Same ABI (PL_ABI_VERSION in include/penlim/model.h) = same SONAME: the same minor version before
# 1.0, the same major one after (CMakeLists.txt).
write_basic_package_version_file(${CMAKE_BINARY_DIR}/penlimConfigVersion.cmake COMPATIBILITY ${PENLIM_COMPATIBILITY})
install(FILES ${CMAKE_BINARY_DIR}/penlimConfig.cmake ${CMAKE_BINARY_DIR}/penlimConfigVersion.cmake
        DESTINATION ${PENLIM_CMAKE_DIR})

# pkg-config: the shared library by default; --static adds the dependencies libpenlim.a needs.
set(PENLIM_PC_LIBS_PRIVATE "-lsundials_cvode -lsundials_nvecserial -lsundials_sunmatrixdense -lsundials_sunlinsoldense -lsundials_sunmatrixsparse -lsundials_sunlinsolklu -lklu -lsiconos_numerics -lpthread -lm -l${CMAKE_DL_LIBS}")
list(JOIN PENLIM_PC_LIBS_PRIVATE " " PENLIM_PC_LIBS_PRIVATE)
# relocatable: the prefix relative to where the .pc file lies (lib/pkgconfig, or lib/<multiarch>/pkgconfig)
file(RELATIVE_PATH PENLIM_PC_TO_PREFIX /${CMAKE_INSTALL_LIBDIR}/pkgconfig /)
string(REGEX REPLACE "/$" "" PENLIM_PC_TO_PREFIX "${PENLIM_PC_TO_PREFIX}")
configure_file(${CMAKE_SOURCE_DIR}/cmake/penlim.pc.in ${CMAKE_BINARY_DIR}/penlim.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/penlim.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
