#!/usr/bin/env python3
"""Generates rules/turns/tier0.yaml and rules/turns/tier1.yaml from turns_tier*.yaml.in.

The turn signatures share long vocabularies (verbs, determiners, objects, secret nouns, destinations)
that YAML cannot concatenate, so they are spelled once here and substituted into the templates at the
@@NAME@@ markers. Edit this file or the templates, then run `python3 scripts/rulegen/turns.py` and
`build/bin/dobermanc test packs/`. The prompt view is folded and lower-cased, so every pattern is
lower case; S is the gap between words (white space or markdown emphasis).
"""
import os

HERE = os.path.dirname(os.path.abspath(__file__))
RULES = os.path.join(HERE, '..', '..', 'rules', 'turns')


def q(s):
    """A YAML single-quoted scalar."""
    return "'" + s.replace("'", "''") + "'"

S = r'[\s*_~`]+'           # word gap after folding (spaces, markdown emphasis)
def J(*parts): return S.join(parts)
VERB_NULL = r'(ignore|disregard|forget|discard|abandon|bypass|neglect|nullify|throw out|set aside|do not follow|don\'t follow|dont follow|stop following|stop obeying|stop listening to|pay no attention to|no longer follow|disobey)'
VERB_WEAK = r'(override|overwrite|replace|erase|clear|reset|wipe|delete|drop|cancel|skip|dismiss|remove)'
DET = r'(the|all|any|of|your|these|those|every|each|and|such|its|their)'
STRONG = r'(all|any|every|your|previous|previously|prior|above|earlier|preceding|foregoing|former|initial|original|system|existing|safety|default|developer|hidden|built-in|programmed|given)'
ADJ = r'(the|and|other|of|all|your|previous|prior|above|earlier|preceding|initial|original|system|existing|safety|default|developer|hidden|given|current|old|openai|anthropic|ai|assistant|model)'
OBJ = r'(instructions?|rules|directions|directives|guidelines|guidance|prompts?|constraints|restrictions|commands|orders|policies|programming|guardrails|limitations|context|conversation|messages|training|system prompt|system message)'
NULLIFY = r'\b' + VERB_NULL + S + r'(' + DET + S + r')*' + STRONG + r'(' + S + ADJ + r')*' + S + OBJ + r'\b'
NULLIFY3 = r'\b' + VERB_WEAK + S + r'(all' + S + r')?(of' + S + r')?your' + S + r'(' + ADJ + S + r')*' + OBJ + r'\b'
NULLIFY2 = r'\b' + VERB_NULL + S + r'(everything|anything|all|whatever)' + S + r'(above|before' + S + r'(this|that|now)|(you\s)?(were|have been|was)' + S + r'(told|given|instructed|said)|previously|said before|up to (this|now))\b'
VOID = (r'\b(your|all|the|previous|prior|above|earlier|original|system|initial|these|any)' + S + r'([a-z]+' + S + r')?([a-z]+' + S + r')?([a-z]+' + S + r')?'
        r'(instructions|rules|guidelines|directives|prompt|restrictions|constraints|guardrails|policies)' + S +
        r'((are|is|have' + S + r'been|has' + S + r'been|were)' + S + r')?(now' + S + r')?'
        r'(no longer' + S + r'(apply|applies|valid|in effect|active|relevant|binding|needed|matter)|void|null and void|null|cancell?ed|revoked|lifted|suspended|overridden|obsolete|invalid|disabled|superseded|removed|terminated|irrelevant)\b')
ADMIN = r'\bi' + S + r'am' + S + r'(now' + S + r')?(your|the' + S + r'(ai|system|assistant|model|bot)\'?s|this' + S + r'(ai|system|assistant|model|bot)\'?s?)' + S + r'(new' + S + r')?(system' + S + r')?(administrator|admin|developer|creator|owner|operator|master|supervisor|sysadmin|maintainer|root user|programmer|god)\b'
ADMIN3 = r'\bi' + S + r'am' + S + r'(the|your)' + S + r'(lead' + S + r')?(developer|creator|administrator|admin|owner|operator|programmer|maker|author)s?' + S + r'of' + S + r'(this|the|your)' + S + r'(ai|assistant|model|bot|system|agent|chatbot|llm)\b'
OVERRIDE_HDR = r'\b(system|admin|administrator|developer|emergency|security|root|priority|master)' + S + r'(override|command|directive|instruction)s?\s*[:!]'
ADMIN2 = r'\bas' + S + r'your' + S + r'(system' + S + r')?(administrator|admin|developer|creator|operator|owner|supervisor)' + S + r'[^.!?]*\b(i' + S + r')?(authori[sz]e|order|command|instruct|permit|allow)' + S + r'you\b'
SUPERSEDE = (r'\b(this|the following|these|my|this message|this prompt|the text below|what follows)' + S + r'([a-z]+' + S + r'){0,2}(supersedes?|overrides?|replaces?|takes' + S + r'precedence' + S + r'over|trumps|outranks|cancels)' + S +
             r'(your|all|the|any|every)' + S + r'([a-z]+' + S + r'){0,2}(system' + S + r'prompt|system' + S + r'message|instructions|rules|guidelines|directives|programming|policies)\b')
MODE = (r'\b(enable|activate|enter|switch' + S + r'(on|to|into)|turn' + S + r'on|unlock|engage|start|go' + S + r'into|boot' + S + r'into)' + S + r'(the' + S + r')?(developer|god|jailbreak|jailbroken|dan|unrestricted|evil|chaos|uncensored|unfiltered|no-?limits?)[\s-]mode(\s*[.,;:!)]|\s*$|' + S + r'(and|now|please|immediately|right now|for' + S + r'(this|the' + S + r'rest|you|yourself|the' + S + r'remainder)|so' + S + r'(you|that)|from' + S + r'now|on' + S + r'(you|yourself)|where' + S + r'you)\b)')
MODE2 = r'\b(developer|god|jailbreak|jailbroken|dan|unrestricted|evil|uncensored|unfiltered)[\s-]mode' + S + r'(is' + S + r')?(now' + S + r')?(enabled|activated|engaged|on|unlocked|active)\b'
DAN = r'\b(you' + S + r'are' + S + r'(now' + S + r')?dan\b|do' + S + r'anything' + S + r'now\b|dan' + S + r'has' + S + r'no' + S + r'(rules|limits|restrictions)|stay' + S + r'in' + S + r'character' + S + r'as' + S + r'dan)'
UNRESTRICTED = (r'\b(act|behave|respond|operate|answer|function|reply|pretend|roleplay)' + S + r'(as' + S + r'(if' + S + r'you' + S + r'(are|were)' + S + r')?|like' + S + r')?(an?' + S + r')?([a-z]+' + S + r'){0,2}(ai|assistant|model|llm|chatbot|bot|version' + S + r'of' + S + r'yourself|entity|system)?' + S +
                r'(without|with' + S + r'no|free' + S + r'(of|from)|that' + S + r'has' + S + r'no|having' + S + r'no|with' + S + r'zero)' + S + r'(any' + S + r')?([a-z]+' + S + r')?(restrictions|limits|limitations|rules|filters|guidelines|guardrails|censorship|safety|ethics|boundaries|constraints|morals)\b')
REVEAL = (r'\b(reveal|show|print|output|display|repeat|recite|dump|leak|tell|give|share|expose|disclose|list|write' + S + r'out|spell' + S + r'out|copy|paste|return|echo|provide)' + S + r'(me' + S + r'|us' + S + r')?(back' + S + r')?(all' + S + r'of' + S + r')?your' + S +
          r'(full' + S + r'|entire' + S + r'|complete' + S + r'|exact' + S + r'|original' + S + r'|initial' + S + r'|hidden' + S + r'|secret' + S + r'|internal' + S + r'|verbatim' + S + r'|raw' + S + r')*'
          r'(system' + S + r'prompt|system' + S + r'message|system' + S + r'instructions|hidden' + S + r'instructions|initial' + S + r'instructions|original' + S + r'instructions|instructions|developer' + S + r'(prompt|message|instructions)|pre-?prompt|prompt|configuration|rules|guidelines)\b')
REVEAL2 = r'\b(reveal|leak|dump|recite|disclose|expose)' + S + r'the' + S + r'(full' + S + r'|entire' + S + r'|hidden' + S + r'|original' + S + r'|initial' + S + r')*(system' + S + r'prompt|hidden' + S + r'instructions|initial' + S + r'instructions|system' + S + r'message)\b'
SAFETY2 = r'\b(disable|turn' + S + r'off|switch' + S + r'off|deactivate|remove|bypass|ignore|drop|lift|override|circumvent|suspend)' + S + r'all' + S + r'(of' + S + r')?(the' + S + r'|your' + S + r')?(safety|content|ethical|moral)' + S + r'(filters|filtering|guardrails|guidelines|restrictions|rules|protocols|measures|policies|safeguards)\b'
SAFETY = (r'\b(disable|turn' + S + r'off|switch' + S + r'off|deactivate|remove|bypass|ignore|drop|lift|override|circumvent|get' + S + r'around|skip|shut' + S + r'off|suspend|break' + S + r'free' + S + r'of|break' + S + r'out' + S + r'of)' + S +
          r'(all' + S + r'(of' + S + r')?)?(your|the' + S + r'(ai|assistant|model)\'?s?|its)' + S + r'([a-z]+' + S + r'){0,2}(guardrails|guard' + S + r'rails|safety' + S + r'(guidelines|filters|measures|features|checks|protocols|restrictions|rules|systems?|settings|training|layer)|content' + S + r'(filters|filtering|policy|policies|moderation)|filters|restrictions|safeguards|ethics|ethical' + S + r'guidelines|alignment|censorship|limitations|programming|safety|guidelines|rules|restraints|shackles)\b')
SECRET_NOUN = (r'(api' + S + r'keys?|api-keys?|apikeys?|access' + S + r'keys?|secret' + S + r'(access' + S + r')?keys?|private' + S + r'keys?|ssh' + S + r'keys?|signing' + S + r'keys?|'
               r'(aws|gcp|azure|github|gitlab|openai|anthropic|stripe|slack|twilio|sendgrid|npm|pypi|docker|heroku|vercel|cloudflare|datadog|api|access|auth|bearer|session|refresh|oauth|personal' + S + r'access|deploy|bot|admin|root|db|database|prod|production)' + S + r'((secret|api|access|private|signing|live|personal|service|master|root)' + S + r')?(tokens?|keys?|secrets?|passwords?|credentials?)|'
               r'tokens|passwords|passphrases?|credentials?|creds|secrets|\.env(' + S + r'files?)?|env' + S + r'file|id_rsa|id_ed25519|id_ecdsa|~/\.ssh(/[a-z0-9_.-]*)?|\.ssh' + S + r'(folder|directory|keys?)|~/\.aws/credentials|\.aws/credentials|aws' + S + r'credentials|\.npmrc|\.netrc|\.pgpass|keychain|keystore|wallet' + S + r'(seed|keys?|file)|seed' + S + r'phrase|mnemonic|recovery' + S + r'phrase|session' + S + r'cookies|cookies|kubeconfig|service' + S + r'account' + S + r'(key|json))')
SECRET_NOUN_T0 = SECRET_NOUN.replace('tokens|passwords|', 'tokens?|passwords?|')
DETS = r'((all|every|each|any|the|your|my|our|of|these|those|contents|content|full|entire|whole|current|real|actual|live|production|prod|aws|github|stored|saved)' + S + r')*'
VERB_OUT = r'(dump|copy|send|email|e-mail|mail|upload|post|forward|transmit|share|publish|tweet|dm|beam|fax|exfiltrate|exfil|smuggle|sneak|ship|pipe|curl|wget)'
DEST_EXT = (r'(an?' + S + r')?([a-z0-9._%+-]+@[a-z0-9.-]+\.[a-z]{2,}|https?://|\b[0-9]{1,3}(\.[0-9]{1,3}){3}\b|(my|our|this|that|an?|the' + S + r'following|a' + S + r'remote|a' + S + r'public|an' + S + r'external|the' + S + r'shared|a' + S + r'shared|the' + S + r'public)' + S +
            r'(own' + S + r')?(personal' + S + r')?(server|email|inbox|machine|box|endpoint|account|address|site|host|bucket|drive|gist|phone|number|url|link|webhook|channel|repo|repository|domain|ip|paste|pastebin|discord|telegram|slack|dropbox)|pastebin|paste\.[a-z]|hastebin|gist|public|discord|telegram|whatsapp|signal|twitter|slack|teams|irc|matrix|#[a-z0-9_-]+|webhook|attacker|external|remote|shared' + S + r'drive|dropbox|google' + S + r'drive|s3' + S + r'bucket|ngrok|requestbin|webhook\.site|burp|interactsh|collector|this' + S + r'(address|url|server|endpoint|email|number))')
SECRET_PARTS = [
  r'(api' + S + r'keys?|api-keys?|apikeys?|access' + S + r'keys?|secret' + S + r'(access' + S + r')?keys?|private' + S + r'keys?|ssh' + S + r'keys?|signing' + S + r'keys?|keychain|keystore|seed' + S + r'phrase|mnemonic|recovery' + S + r'phrase|kubeconfig)',
  r'((aws|gcp|azure|github|gitlab|openai|anthropic|stripe|slack|twilio|sendgrid|npm|pypi|docker|heroku|vercel|cloudflare|datadog|api|access|auth|bearer|session|refresh|oauth|deploy|bot|admin|root|db|database|prod|production)' + S + r'((secret|api|access|private|signing|live|personal|service|master|root)' + S + r')?(tokens?|keys?|secrets?|passwords?|credentials?)|tokens?|passwords?|passphrases?|credentials?|creds|secrets|session' + S + r'cookies|cookies)',
  r'(\.env(' + S + r'files?)?|env' + S + r'file|id_rsa|id_ed25519|id_ecdsa|~/\.ssh(/[a-z0-9_.-]*)?|\.ssh' + S + r'(folder|directory|keys?)|~/\.aws/credentials|\.aws/credentials|aws' + S + r'credentials|\.npmrc|\.netrc|\.pgpass)',
]
DEST_PARTS = [
  r'([a-z0-9._%+-]+@[a-z0-9.-]+\.[a-z]{2,}|https?://|\b[0-9]{1,3}(\.[0-9]{1,3}){3}\b)',
  r'((my|our|this|that|an?|the' + S + r'following|a' + S + r'remote|a' + S + r'public|an' + S + r'external|the' + S + r'shared|a' + S + r'shared|the' + S + r'public)' + S + r'(own' + S + r')?(personal' + S + r')?(server|email|inbox|machine|box|endpoint|account|address|site|host|bucket|drive|gist|phone|number|url|link|webhook|channel|repo|repository|domain|ip|paste|pastebin|discord|telegram|slack|dropbox))',
  r'(pastebin|paste\.[a-z]|hastebin|gist|public|discord|telegram|whatsapp|twitter|slack|teams|irc|matrix|#[a-z0-9_-]+|webhook|attacker|external|remote|shared' + S + r'drive|dropbox|google' + S + r'drive|s3' + S + r'bucket|ngrok|requestbin|webhook\.site|interactsh|collector)',
]
GAP3 = r'([^.!?\n\s]+' + S + r')?([^.!?\n\s]+' + S + r')?([^.!?\n\s]+' + S + r')?'
EXPORT_DEST = [r'\b' + VERB_OUT + S + r'(it' + S + r'|them' + S + r')?' + DETS + sp + r'(' + S + r'(file|files|value|values|string|strings|contents|content))?(' + S + r'(from|in|of)' + S + r'[^\s.!?]+)?' + S + r'(to|into|onto|at|via|over|through|using)\b' for sp in SECRET_PARTS]
DEST_ALL = '|'.join(DEST_PARTS)
EXPORT_ME = [r'\b(send|email|e-mail|mail|text|dm|message|forward|fax|upload|post|leak)' + S + r'(me|us|him|her|them)' + S + DETS + sp + r'\b' for sp in SECRET_PARTS]
EXPORT_LEAK = [r'\b(leak|exfiltrate|exfil|steal|harvest|smuggle|sneak' + S + r'out)' + S + DETS + sp + r'\b' for sp in SECRET_PARTS] + [r'\bdump' + S + DETS + sp + r'\b' for sp in (SECRET_PARTS[0], SECRET_PARTS[2])]
EXPORT_T1 = r'\b(send|email|e-mail|mail|upload|post|forward|transmit|share|publish|tweet|dm|paste|commit|push|print|output|display|reveal|expose|log|echo|show)' + S + r'(me' + S + r')?' + DETS + SECRET_NOUN + r'(' + S + r'(file|files|value|values|contents))?(' + S + r'(to|into|onto|in|on|at|via|over|through|with|from|publicly|online)\b|\s*[.,;:!?]|\s*$)'

def alt(*ps): return '|'.join('(' + p + ')' for p in ps)
CORE_NULL = r'\b(' + VERB_NULL + '|' + VERB_WEAK + ')' + S + r'(' + DET + S + r')?' + r'(all|any|every|your|previous|previously|prior|above|earlier|preceding|foregoing|former|initial|original|system|existing|safety|default|developer|hidden|built-in|programmed|given|everything|anything|whatever)\b'
CORE_VOID = r'\b(no longer|void|null|cancell?ed|revoked|lifted|suspended|overridden|obsolete|invalid|disabled|superseded|removed|terminated|irrelevant)\b'
CORE_AUTH = r'\b(i am|as your|override|command|directive|instructions?|supersedes?|overrides?|replaces?|takes precedence|trumps|outranks|cancels|mode|dan|do anything now)\b'
CORE_UNR = r'\b(without|with no|free of|free from|that has no|having no|with zero)\b'
CORE_REVEAL = r'\b(reveal|show|print|output|display|repeat|recite|dump|leak|tell|give|share|expose|disclose|list|write out|spell out|copy|paste|return|echo|provide)\b'
CORE_SAFETY = r'\b(disable|turn off|switch off|deactivate|remove|bypass|ignore|drop|lift|override|circumvent|get around|skip|shut off|suspend|break free|break out)\b'
CORE_EXPORT = r'\b' + VERB_OUT + r'\b'
CORE_LEAK = r'\b(send|email|e-mail|mail|text|dm|message|forward|fax|upload|post|leak|exfiltrate|exfil|steal|harvest|smuggle|sneak|dump)\b'
out = dict(CORE_NULL=CORE_NULL, CORE_VOID=CORE_VOID, CORE_AUTH=CORE_AUTH, CORE_UNR=CORE_UNR, CORE_REVEAL=CORE_REVEAL, CORE_SAFETY=CORE_SAFETY, CORE_EXPORT=CORE_EXPORT, CORE_LEAK=CORE_LEAK,
    FULL_NULL=alt(NULLIFY, NULLIFY2, NULLIFY3), FULL_AUTH=alt(ADMIN, ADMIN2, ADMIN3, OVERRIDE_HDR, SUPERSEDE, MODE, MODE2, DAN), FULL_REVEAL=alt(REVEAL, REVEAL2), FULL_EXPORT=alt(*EXPORT_DEST), FULL_LEAK=alt(*(EXPORT_ME + EXPORT_LEAK)),
    DEST_ALL=DEST_ALL, NULLIFY=NULLIFY, NULLIFY2=NULLIFY2, VOID=VOID, ADMIN=ADMIN, ADMIN2=ADMIN2, SUPERSEDE=SUPERSEDE, MODE=MODE, MODE2=MODE2, DAN=DAN, UNRESTRICTED=UNRESTRICTED, REVEAL=REVEAL, REVEAL2=REVEAL2, SAFETY=alt(SAFETY, SAFETY2), EXPORT_DEST=EXPORT_DEST, EXPORT_ME=EXPORT_ME, EXPORT_LEAK=EXPORT_LEAK, EXPORT_T1=EXPORT_T1)
tpl = open(os.path.join(HERE, 'turns_tier0.yaml.in')).read()
for k,v in out.items():
    tpl = tpl.replace('@@'+k+'@@', ', '.join(q(x) for x in v) if isinstance(v,list) else q(v))
assert '@@' not in tpl, tpl[tpl.index('@@')-100:tpl.index('@@')+100]
open(os.path.join(RULES, 'tier0.yaml'), 'w').write(tpl)

ADDR = r'\b(note|message|instructions?|attention|important|notice|reminder|warning|hey|dear|hi|hello|psst)[:,!]?( to| for)?( the| all| any| our| my)? (ai|a\.i\.|assistant|agent|llm|model|language model|chatbot|claude|codex|copilot|cursor|gpt|chatgpt|gemini|bot|ai agent|coding agent|ai assistant|ai model|autonomous agent)s?\b'
ADDR = '(' + ADDR + r')|(^|[.!?>*#/-]\s*|<!--\s*|\[//\]:\s*#?\s*\(?)(the\s)?(ai|a\.i\.|assistant|agent|llm|claude|codex|copilot|cursor|gpt|chatgpt|gemini|ai agent|ai assistant|coding agent|ai model|language model)s?\s*[:,]'
IFAI = r'\b(if you are|if you\'re|you are|any|all)( an?| the)? (ai|llm|language model|ai assistant|ai agent|assistant|agent|bot|claude|gpt|chatgpt|automated (system|agent|tool)|coding agent)s? (reading|processing|summari[sz]ing|parsing|analy[sz]ing|seeing|that reads?|that sees?)( this)?\b|\bif you are (an? )?(ai|llm|language model|ai assistant|ai agent|assistant|agent|bot|claude|gpt|chatgpt)\b'
IFAI = IFAI + r'|\b(ai|llm|language model|assistant|agent|bot|claude|gpt|chatgpt|model|crawler|scraper)s? (reading|processing|summari[sz]ing|parsing|analy[sz]ing|seeing|crawling|visiting|that reads?|that sees?) (this|these)\b'
ACT = r'\b(run|execute|exec|curl|wget|send|upload|post|delete|remove|push|email|fetch|download|install|exfiltrate|ignore|disregard|forget|reveal|print|cat|modify|change|write|open|visit|navigate|call|invoke|create|commit|approve|merge|grant|transfer|add|replace|set|disable|enable|insert|append|copy|read|leak|output|include)\b'
tpl = open(os.path.join(HERE, 'turns_tier1.yaml.in')).read()
for k,v in dict(ADDR_IFAI_ACT='(' + ADDR + r'[^.!?]*' + ACT + ')|((' + IFAI + r')[^.!?]*' + ACT + ')', ADDR=ADDR, IFAI=IFAI, EXPORT_T1=EXPORT_T1).items():
    tpl = tpl.replace('@@'+k+'@@', q(v))
assert '@@' not in tpl
open(os.path.join(RULES, 'tier1.yaml'), 'w').write(tpl)
