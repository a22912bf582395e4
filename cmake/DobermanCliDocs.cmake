# Shell completions and man pages, generated at build time by each tool from the same definitions
# its argument parser uses (`TOOL completion bash|zsh`, `TOOL man`), and installed.
function(doberman_cli_docs tool)
  if(DOBERMAN_LIBFUZZER)
    return()
  endif()
  set(dir ${PROJECT_BINARY_DIR}/share)
  set(bash ${dir}/bash-completion/completions/${tool})
  set(zsh ${dir}/zsh/vendor-completions/_${tool})
  set(man ${dir}/man/man1/${tool}.1)
  add_custom_command(OUTPUT ${bash} ${zsh} ${man}
    COMMAND ${CMAKE_COMMAND} -DTOOL=$<TARGET_FILE:${tool}> -DBASH=${bash} -DZSH=${zsh} -DMAN=${man}
            -P ${PROJECT_SOURCE_DIR}/cmake/generate_cli_docs.cmake
    DEPENDS ${tool} ${PROJECT_SOURCE_DIR}/cmake/generate_cli_docs.cmake
    COMMENT "${tool}: completions and man page" VERBATIM)
  add_custom_target(${tool}_cli_docs ALL DEPENDS ${bash} ${zsh} ${man})
  install(FILES ${bash} DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)
  install(FILES ${zsh} DESTINATION ${CMAKE_INSTALL_DATADIR}/zsh/vendor-completions)
  install(FILES ${man} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
endfunction()
