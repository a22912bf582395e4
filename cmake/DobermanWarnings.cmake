# Per-target warning and sanitizer settings (no global flags: generated ANTLR code opts out).
function(doberman_target_defaults target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor
                                           -Wold-style-cast -Wcast-align)
  if(DOBERMAN_SANITIZE)
    # Any sanitizer report aborts, so a test or fuzz run that triggers one fails (UBSan would
    # otherwise print and carry on).
    target_compile_options(${target} PRIVATE -fsanitize=${DOBERMAN_SANITIZE} -fno-omit-frame-pointer
                                             -fno-sanitize-recover=all)
    target_link_options(${target} PRIVATE -fsanitize=${DOBERMAN_SANITIZE} -fno-sanitize-recover=all)
  endif()
endfunction()
