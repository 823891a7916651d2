# What `cmake --install build --prefix P` (and `make install`, and the Debian package) puts where,
# besides the two programs (host/ and device/sim/ install those):
#
#   share/man/man1/aioprof-top.1.gz, aioprof-sim.1.gz       docs/man/*.1.in, version filled in
#   share/bash-completion/completions/aioprof-top, -sim     completions/bash/
#   share/zsh/site-functions/_aioprof-top, _aioprof-sim     completions/zsh/ (Debian: see below)
#   share/doc/aioprof-top/                                  README.md, copyright, docs/
#   share/aioprof-top/micropython/                          the board's files: the python front end
#                                                           and engine, mpy/ (prebuilt native
#                                                           modules and their manifest.json)
#
# Every destination is relative to the prefix, so an install can be moved as a whole: aioprof-top
# finds its simulator relative to its own path (host/input/demo.c).

# Man pages: the version comes from project(), the one place it is set; compressed as Debian
# wants them (man reads either).
find_program(AIOPROF_GZIP gzip)
set(man_dir ${CMAKE_CURRENT_BINARY_DIR}/man)
set(man_outputs)
foreach(page aioprof-top.1 aioprof-sim.1)
  configure_file(${PROJECT_SOURCE_DIR}/docs/man/${page}.in ${man_dir}/${page} @ONLY)
  if(AIOPROF_GZIP)
    # -n: no name or time stamp inside, so the same page gives the same bytes
    add_custom_command(OUTPUT ${man_dir}/${page}.gz
      COMMAND ${AIOPROF_GZIP} -9nc ${man_dir}/${page} > ${man_dir}/${page}.gz
      DEPENDS ${man_dir}/${page} ${PROJECT_SOURCE_DIR}/docs/man/${page}.in
      COMMENT "Compressing the man page ${page}")
    list(APPEND man_outputs ${man_dir}/${page}.gz)
  else()
    list(APPEND man_outputs ${man_dir}/${page})
  endif()
endforeach()
add_custom_target(aioprof_man ALL DEPENDS ${man_outputs})
install(FILES ${man_outputs} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)

install(FILES ${PROJECT_SOURCE_DIR}/completions/bash/aioprof-top
              ${PROJECT_SOURCE_DIR}/completions/bash/aioprof-sim
        DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/bash-completion/completions)

# zsh: share/zsh/site-functions is where zsh itself looks under its prefix (/usr/local on Debian
# too), and what other distributions' /usr uses. Debian's zsh does not search
# /usr/share/zsh/site-functions: packages put completions in /usr/share/zsh/vendor-completions.
# So the plain install has the first (component zsh-site), and the Debian package, which installs
# the components cmake/package.cmake lists, the second instead (zsh-debian, not installed
# otherwise). AIOPROF_ZSH_COMPLETION_DIR overrides the plain one.
set(AIOPROF_ZSH_COMPLETION_DIR ${CMAKE_INSTALL_DATAROOTDIR}/zsh/site-functions CACHE STRING
  "Where the zsh completion goes, relative to the prefix")
set(zsh_completions ${PROJECT_SOURCE_DIR}/completions/zsh/_aioprof-top
                    ${PROJECT_SOURCE_DIR}/completions/zsh/_aioprof-sim)
install(FILES ${zsh_completions} DESTINATION ${AIOPROF_ZSH_COMPLETION_DIR} COMPONENT zsh-site)
install(FILES ${zsh_completions} DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/zsh/vendor-completions
        COMPONENT zsh-debian EXCLUDE_FROM_ALL)

# The documentation, laid out as in the source tree so that the README's links (docs/usage.md...)
# work where it is installed. `copyright` is the licence under the name Debian looks for.
set(AIOPROF_DOC_DIR ${CMAKE_INSTALL_DATAROOTDIR}/doc/aioprof-top)
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${AIOPROF_DOC_DIR})
install(FILES ${PROJECT_SOURCE_DIR}/LICENSE DESTINATION ${AIOPROF_DOC_DIR} RENAME copyright)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${AIOPROF_DOC_DIR}/docs
        FILES_MATCHING PATTERN "*.md" PATTERN "*.png"
        PATTERN "man" EXCLUDE)

# The files that go onto a board (aioprof-top --install reads the manifest to pick them): the
# python files the manifest names, and every prebuilt module with the manifest itself (not
# build.py, which builds them from a source tree). The manifest is the one list: CMake reads it.
set(AIOPROF_BOARD_SRC ${PROJECT_SOURCE_DIR}/device/micropython)
set(AIOPROF_BOARD_DIR ${CMAKE_INSTALL_DATAROOTDIR}/aioprof-top/micropython)
file(READ ${AIOPROF_BOARD_SRC}/mpy/manifest.json board_manifest)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${AIOPROF_BOARD_SRC}/mpy/manifest.json)
string(JSON board_python_count LENGTH "${board_manifest}" python)
math(EXPR board_python_last "${board_python_count} - 1")
set(board_python)
foreach(i RANGE ${board_python_last})
  string(JSON name GET "${board_manifest}" python ${i})
  list(APPEND board_python ${AIOPROF_BOARD_SRC}/${name})
endforeach()
install(FILES ${board_python} DESTINATION ${AIOPROF_BOARD_DIR})
install(DIRECTORY ${AIOPROF_BOARD_SRC}/mpy/ DESTINATION ${AIOPROF_BOARD_DIR}/mpy
        FILES_MATCHING PATTERN "manifest.json" PATTERN "_aioprof_native.mpy")
