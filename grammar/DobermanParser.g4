// Syntax of the Doberman rule DSL (.dbr): rule files (rule and shell blocks) and pack manifests
// (one pack block). docs/dsl.md is the reference. The grammar is LL(1) everywhere; it builds no AST
// itself: compiler/src/dsl_frontend.cc walks the parse tree into the same AST as the YAML front-end.
// Meaning (verdict names, scopes, ids, when-expressions) is checked later, once, by the checker.
parser grammar DobermanParser;

options { tokenVocab = DobermanLexer; }

file        : topItem* EOF;
topItem     : defineDecl | ruleDecl | shellDecl | packDecl;

// ---- fragments: `define name /regex/`, used in this file's patterns as (?&name) -----------------
defineDecl  : K_DEFINE name=value pattern;

// ---- rules ------------------------------------------------------------------------------------
ruleDecl    : K_RULE id=value? (COLON family=value)? LBRACE ruleField* RBRACE;

ruleField
    : key=(K_DESCRIPTION | K_VERDICT | K_TIER | K_REASON | K_MESSAGE | K_MENTION) value
    | key=(K_SCOPES | K_TAGS | K_ORIGINS) valueList
    | key=(K_DECODE | K_MENTION_MARKER) flagValue?
    | key=(K_ANY | K_ALL | K_NONE | K_EXCUSE) pattern+
    | key=K_VALIDATORS LBRACE validatorField* RBRACE
    | key=K_WHEN whenExpr
    | key=(K_MATCH | K_PASS) example
    ;

pattern        : (REGEX | STRING) flagList?;
flagList       : LPAREN valueList RPAREN;

validatorField
    : key=(K_MIN_ENTROPY | K_MIN_LENGTH) value
    | key=K_PLACEHOLDER flagValue?
    | key=K_EXEMPT valueList
    ;

whenExpr       : WHEN_TEXT | STRING;

example        : value | LBRACE callField* RBRACE;
callField
    : key=(K_TOOL | K_COMMAND | K_PATH | K_CWD | K_CONTENT | K_URL | K_PROMPT | K_ORIGIN) value
    | key=K_ARGS valueList
    ;

// ---- shell tables -----------------------------------------------------------------------------
shellDecl   : K_SHELL LBRACE shellField* RBRACE;
shellField
    : key=K_WRAPPERS LBRACE wrapper* RBRACE
    | key=(K_SHELLS | K_SPLIT_FLAGS | K_STDIN_PROGRAMS | K_RUNNERS) valueList
    | key=K_ALIAS command=value from=value ARROW to=value
    ;
wrapper        : wrapperName wrapperOption*;
wrapperOption  : key=K_VALUE_OPTIONS valueList | key=K_POSITIONAL value;

// ---- pack manifests ---------------------------------------------------------------------------
packDecl    : K_PACK name=value? LBRACE packField* RBRACE;
packField
    : key=(K_VERSION | K_REVISION | K_DESCRIPTION | K_EXPIRES) value
    | key=(K_INCLUDE | K_EXCLUDE_RULES | K_PLATFORMS) valueList
    | key=K_LIMITS LBRACE limit* RBRACE
    ;
limit       : name=value amount=value;

// ---- values -----------------------------------------------------------------------------------
valueList   : value (COMMA value)*;
// Where a list or a fixed number of values follows, keywords are plain values (`scopes command`).
value       : WORD | STRING | keyword;
// After a keyword that may stand alone (`decode`), only a non-keyword value can follow.
flagValue   : WORD | STRING;
// A wrapper's name cannot be one of its option keywords.
wrapperName : WORD | STRING | wrapperNameKeyword;

keyword
    : wrapperNameKeyword | K_VALUE_OPTIONS | K_POSITIONAL
    ;
wrapperNameKeyword
    : K_RULE | K_SHELL | K_PACK | K_DESCRIPTION | K_SCOPES | K_VERDICT | K_TIER | K_REASON
    | K_MESSAGE | K_TAGS | K_ORIGINS | K_ANY | K_ALL | K_NONE | K_EXCUSE | K_VALIDATORS | K_MIN_ENTROPY
    | K_MIN_LENGTH | K_PLACEHOLDER | K_EXEMPT | K_DECODE | K_MENTION | K_MENTION_MARKER | K_MATCH
    | K_PASS | K_TOOL | K_COMMAND | K_PATH | K_CWD | K_CONTENT | K_URL | K_PROMPT | K_ORIGIN
    | K_ARGS | K_WRAPPERS | K_SHELLS | K_SPLIT_FLAGS | K_STDIN_PROGRAMS | K_RUNNERS | K_ALIAS | K_VERSION | K_REVISION
    | K_EXPIRES | K_INCLUDE | K_EXCLUDE_RULES | K_PLATFORMS | K_LIMITS | K_DEFINE
    ;
