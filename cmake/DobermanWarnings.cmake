# Per-target warning and sanitizer settings (no global flags: generated ANTLR code opts out).
function(doberman_target_defaults target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor
                                           -Wold-style-cast -Wcast-align)
  if(DOBERMAN_SANITIZE)
    target_compile_options(${target} PRIVATE -fsanitize=${DOBERMAN_SANITIZE} -fno-omit-frame-pointer)
    target_link_options(${target} PRIVATE -fsanitize=${DOBERMAN_SANITIZE})
  endif()
endfunction()
