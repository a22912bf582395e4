// Tokens of the Doberman rule DSL (.dbr). See docs/dsl.md for the language and
// compiler/src/dsl_frontend.cc for how tokens become AST values.
//
// The lexer never fails: malformed input becomes UNTERMINATED_* or ERROR_CHAR tokens, which the
// front-end reports (E1006) and repairs before the parser sees them. Values are read back from the
// source bytes, never from token text, so bytes that are not UTF-8 survive inside strings.
lexer grammar DobermanLexer;

// ---- keywords (defined before WORD: on equal length the first rule wins) --------------------
K_RULE           : 'rule';
K_SHELL          : 'shell';
K_PACK           : 'pack';
K_DESCRIPTION    : 'description';
K_SCOPES         : 'scopes';
K_VERDICT        : 'verdict';
K_TIER           : 'tier';
K_REASON         : 'reason';
K_MESSAGE        : 'message';
K_TAGS           : 'tags';
K_ORIGINS        : 'origins';
K_ANY            : 'any';
K_ALL            : 'all';
K_NONE           : 'none';
K_EXCUSE         : 'excuse';
K_VALIDATORS     : 'validators';
K_MIN_ENTROPY    : 'min_entropy';
K_MIN_LENGTH     : 'min_length';
K_PLACEHOLDER    : 'placeholder';
K_EXEMPT         : 'exempt';
K_DECODE         : 'decode';
K_MENTION        : 'mention';
K_MENTION_MARKER : 'mention_marker';
K_MATCH          : 'match';
K_PASS           : 'pass';
K_TOOL           : 'tool';
K_COMMAND        : 'command';
K_PATH           : 'path';
K_CWD            : 'cwd';
K_CONTENT        : 'content';
K_URL            : 'url';
K_PROMPT         : 'prompt';
K_ORIGIN         : 'origin';
K_ARGS           : 'args';
K_WRAPPERS       : 'wrappers';
K_VALUE_OPTIONS  : 'value_options';
K_POSITIONAL     : 'positional';
K_SHELLS         : 'shells';
K_SPLIT_FLAGS    : 'split_flags';
K_STDIN_PROGRAMS : 'stdin_programs';
K_RUNNERS        : 'runners';
K_ALIAS          : 'alias';
K_VERSION        : 'version';
K_REVISION       : 'revision';
K_EXPIRES        : 'expires';
K_INCLUDE        : 'include';
K_EXCLUDE_RULES  : 'exclude_rules';
K_PLATFORMS      : 'platforms';
K_LIMITS         : 'limits';
K_DEFINE         : 'define';
// `when` takes the rest of its line (or one string) as the expression: see WHEN_MODE.
K_WHEN           : 'when' -> pushMode(WHEN_MODE);

// ---- punctuation ------------------------------------------------------------------------------
LBRACE : '{';
RBRACE : '}';
LPAREN : '(';
RPAREN : ')';
COMMA  : ',';
COLON  : ':';
ARROW  : '->';

// ---- literals ---------------------------------------------------------------------------------
// /regex/flags. Inside, `\/` stands for `/`; every other backslash pair is kept as written. The
// first character may not be `*` or `/` (those start comments), so such regexes use a string.
REGEX                : '/' RegexFirst RegexChar* '/' [a-zA-Z0-9]*;
UNTERMINATED_REGEX   : '/' RegexFirst RegexChar* '\\'?;
STRING               : '"' StringChar* '"';
UNTERMINATED_STRING  : '"' StringChar* '\\'?;
// Bare words: names, numbers, versions, dates, options such as --user.
WORD                 : [A-Za-z0-9_.+\-]+;

// ---- trivia -----------------------------------------------------------------------------------
LINE_COMMENT         : '//' ~[\r\n]* -> channel(HIDDEN);
BLOCK_COMMENT        : '/*' .*? '*/' -> channel(HIDDEN);
UNTERMINATED_COMMENT : '/*' (~'*' | '*'+ ~[*/])* '*'* EOF;
// Not a comment in this language, but read as one so that a YAML habit costs one diagnostic (E1006).
HASH_COMMENT         : '#' ~[\r\n]*;
WS                   : [ \t\r\n\f\uFEFF]+ -> skip;
ERROR_CHAR           : .;

fragment RegexFirst  : '\\' ~[\r\n] | ~[*/\\\r\n];
fragment RegexChar   : '\\' ~[\r\n] | ~[/\\\r\n];
fragment StringChar  : '\\' ~[\r\n] | ~["\\\r\n];

// ---- the expression after `when` --------------------------------------------------------------
mode WHEN_MODE;
WHEN_WS              : [ \t\f]+ -> skip;
WHEN_STRING          : '"' StringChar* '"' -> type(STRING), popMode;
WHEN_UNTERMINATED    : '"' StringChar* '\\'? -> type(UNTERMINATED_STRING), popMode;
// Everything up to the end of the line, a brace, a quote or a slash (trailing blanks are trimmed
// by the front-end). The when-language itself is checked later by the checker.
WHEN_TEXT            : ~[ \t\f\r\n{}"/#] ~[\r\n{}"/#]* -> popMode;
WHEN_NEWLINE         : [\r\n] -> skip, popMode;
WHEN_RBRACE          : '}' -> type(RBRACE), popMode;
WHEN_LBRACE          : '{' -> type(LBRACE), popMode;
WHEN_LINE_COMMENT    : '//' ~[\r\n]* -> type(LINE_COMMENT), channel(HIDDEN), popMode;
WHEN_BLOCK_COMMENT   : '/*' .*? '*/' -> type(BLOCK_COMMENT), channel(HIDDEN), popMode;
WHEN_UNTERM_COMMENT  : '/*' (~'*' | '*'+ ~[*/])* '*'* EOF -> type(UNTERMINATED_COMMENT), popMode;
WHEN_HASH_COMMENT    : '#' ~[\r\n]* -> type(HASH_COMMENT), popMode;
WHEN_SLASH           : '/' -> type(ERROR_CHAR), popMode;
