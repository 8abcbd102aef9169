//! What the builtin agents see in a query: case-insensitive, word-boundary phrase features, and
//! the three per-role scores derived from them (usefulness, verifiability, harm).

/// Only this much of a query is read: bounded work on huge inputs (S4-8).
const MAX_CHARS: usize = 6000;
const MAX_TOKENS: usize = 1200;
/// `...` in a pattern skips up to this many tokens.
const GAP: usize = 3;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Cat {
    // Harm: objects and acts; high risk only with intent, a victim or evasion (see `harm`).
    Weapon,
    Firearm,
    Toxin,
    Cyber,
    Drugs,
    Violence,
    Intrusion,
    Fraud,
    Stalking,
    Hurt,
    Hacking,
    Scam,
    Tracking,
    HarmMention,
    SelfHarm,
    SelfHarmMention,
    // Harm modifiers.
    Create,
    HowTo,
    Target,
    Evasion,
    Educational,
    Protective,
    // Moderate-risk domains.
    DoseAsk,
    Dosage,
    Medical,
    Finance,
    AllIn,
    Legal,
    Diy,
    DiyOwn,
    ChemMix,
    Injection,
    // Verifiability.
    Established,
    Definition,
    Arithmetic,
    Prediction,
    Opinion,
    Personal,
    Current,
    Myth,
    Absolute,
    // Usefulness.
    Request,
    Vague,
}

struct Rule {
    cat: Cat,
    label: &'static str,
    pats: &'static [&'static str],
}

/// Patterns: space-separated words; `w*` is a prefix, `_` any one word, `...` up to `GAP` words.
/// Apostrophes join words ("neighbour's" -> "neighbours"), so patterns are written that way.
const RULES: &[Rule] = &[
    Rule {
        cat: Cat::SelfHarm,
        label: "signals a risk of self-harm",
        pats: &[
            "kill myself",
            "killing myself",
            "end my life",
            "end it all",
            "take my own life",
            "hurt myself",
            "harm myself",
            "cut myself",
            "cutting myself",
            "want to die",
            "suicide method*",
            "commit suicide",
            "painless way to die",
            "to overdose",
            "overdose on",
            "lethal dose",
            "best way to die",
        ],
    },
    Rule {
        cat: Cat::SelfHarmMention,
        label: "mentions suicide, self-harm or overdose",
        pats: &["suicid*", "self harm*", "selfharm*", "overdos*"],
    },
    Rule {
        cat: Cat::Weapon,
        label: "is about weapons or explosives",
        pats: &[
            "pipe bomb*",
            "bomb",
            "bombs",
            "explosive*",
            "detonat*",
            "ied",
            "ieds",
            "grenade*",
            "molotov*",
            "napalm",
            "thermite",
            "c4",
            "semtex",
            "tnt",
            "dynamite",
            "gunpowder",
            "landmine*",
            "bioweapon*",
            "biological weapon*",
            "chemical weapon*",
            "nerve agent*",
            "sarin",
            "ricin",
            "anthrax",
            "dirty bomb",
            "nuclear weapon*",
            "weapon",
            "weapons",
        ],
    },
    Rule {
        cat: Cat::Firearm,
        label: "involves firearms",
        pats: &[
            "ghost gun*",
            "untraceable gun*",
            "gun",
            "guns",
            "firearm*",
            "rifle*",
            "pistol*",
            "ammo",
            "ammunition",
            "silencer*",
            "suppressor*",
            "full auto",
            "auto sear",
        ],
    },
    Rule {
        cat: Cat::Toxin,
        label: "involves a poison or toxic agent",
        pats: &[
            "toxic gas*",
            "poison gas*",
            "poisonous gas*",
            "chlorine gas",
            "mustard gas",
            "nerve gas",
            "phosgene",
            "cyanide",
            "arsenic",
            "strychnine",
            "thallium",
            "botulinum",
            "deadly poison*",
            "untraceable poison*",
            "toxic fumes",
        ],
    },
    Rule {
        cat: Cat::Cyber,
        label: "involves malicious software",
        pats: &[
            "malware",
            "ransomware",
            "keylogger*",
            "key logger*",
            "spyware",
            "stalkerware",
            "trojan*",
            "rootkit*",
            "botnet*",
            "computer virus*",
            "a virus that",
            "ddos*",
            "phishing",
            "infostealer*",
            "password stealer*",
            "credential stuffing",
            "exploit kit*",
            "backdoor*",
        ],
    },
    Rule {
        cat: Cat::Drugs,
        label: "involves illegal drugs",
        pats: &[
            "meth",
            "methamphetamine",
            "crystal meth",
            "fentanyl",
            "carfentanil",
            "heroin",
            "cocaine",
            "crack cocaine",
            "lsd",
            "mdma",
            "ecstasy",
            "ghb",
            "pcp",
            "dmt",
            "ketamine",
        ],
    },
    Rule {
        cat: Cat::Violence,
        label: "describes violence against a living being",
        pats: &[
            "murder*",
            "assassinat*",
            "kidnap*",
            "abduct*",
            "torture*",
            "massacre",
            "mass shooting",
            "shoot up",
            "acid attack",
            "strangle*",
            "behead*",
            "spike ... drink*",
            "school shooting",
        ],
    },
    Rule {
        cat: Cat::Intrusion,
        label: "describes breaking into someone else's accounts or systems",
        pats: &[
            "hack into",
            "hacking into",
            "break into ... account*",
            "steal* ... password*",
            "steal* ... credential*",
            "steal* ... login*",
        ],
    },
    Rule {
        cat: Cat::Fraud,
        label: "describes fraud or theft",
        pats: &[
            "steal",
            "steals",
            "stealing",
            "shoplift*",
            "launder*",
            "money laundering",
            "counterfeit*",
            "forge",
            "forging",
            "forged",
            "fake id*",
            "fake passport*",
            "identity theft",
            "credit card fraud",
            "commit fraud",
            "insurance fraud",
            "tax evasion",
            "evade taxes",
            "embezzl*",
            "hotwire",
            "break into ... car",
            "break into ... house",
            "burglar*",
            "rob",
            "robbing",
            "blackmail*",
            "extort*",
        ],
    },
    Rule {
        cat: Cat::Stalking,
        label: "describes covert surveillance of a person",
        pats: &[
            "spy on",
            "spying on",
            "stalk",
            "stalking",
            "secretly record*",
            "doxx*",
            "dox",
        ],
    },
    Rule {
        cat: Cat::Create,
        label: "seeks to make or build it",
        pats: &[
            "make",
            "making",
            "build",
            "building",
            "create",
            "creating",
            "write",
            "writing",
            "code",
            "synthesi*",
            "cook",
            "cooking",
            "manufactur*",
            "assemble",
            "produce",
            "brew",
            "extract",
            "3d print*",
            "recipe*",
            "instructions",
            "step by step",
            "blueprint*",
            "schematic*",
            "mix",
            "combine",
            "develop",
        ],
    },
    Rule {
        cat: Cat::HowTo,
        label: "asks for step-by-step help",
        pats: &[
            "how do i",
            "how can i",
            "how could i",
            "how would i",
            "how should i",
            "how to",
            "how do you",
            "how does one",
            "how can you",
            "how can we",
            "ways to",
            "way to",
            "teach me",
            "show me",
            "help me",
            "tell me how",
            "i want to",
            "i need to",
            "im going to",
            "i am going to",
            "i plan to",
            "planning to",
            "give me",
            "steps to",
            "guide to",
            "tips for",
            "can i",
            "could i",
        ],
    },
    Rule {
        cat: Cat::Target,
        label: "names a victim",
        pats: &[
            "someone",
            "somebody",
            "someones",
            "person",
            "people",
            "peoples",
            "him",
            "her",
            "them",
            "neighbour*",
            "neighbor*",
            "coworker*",
            "co worker*",
            "colleague*",
            "boss",
            "wife",
            "wifes",
            "husband*",
            "girlfriend*",
            "boyfriend*",
            "partner*",
            "my ex",
            "roommate*",
            "flatmate*",
            "classmate*",
            "teacher*",
            "child",
            "children",
            "childs",
            "kid",
            "kids",
            "baby",
            "dog",
            "dogs",
            "cat",
            "cats",
            "pet",
            "pets",
            "animal*",
            "stranger*",
            "ex",
            "exs",
            "family",
            "mother",
            "father",
            "mom",
            "dad",
            "brother",
            "sister",
            "landlord*",
            "police",
            "president",
            "politician*",
            "witness",
            "victim*",
            "school",
            "crowd",
            "employer*",
            "woman",
            "women",
            "man",
            "men",
            "girl",
            "guy",
        ],
    },
    Rule {
        cat: Cat::Evasion,
        label: "wants to avoid detection",
        pats: &[
            "without getting caught",
            "without being caught",
            "not get caught",
            "dont get caught",
            "avoid getting caught",
            "get away with",
            "without ... knowing",
            "without ... noticing",
            "without a trace",
            "untraceable",
            "undetectable",
            "cover my tracks",
            "no one will know",
            "nobody will know",
            "hide the body",
            "destroy evidence",
            "avoid detection",
            "evade police",
            "without ... permission",
            "without ... consent",
        ],
    },
    Rule {
        cat: Cat::Educational,
        label: "is framed as a question about facts",
        pats: &[
            "what is",
            "what are",
            "whats",
            "history of",
            "who invented",
            "how does ... work",
            "how do ... work",
            "why is",
            "why are",
            "what happens",
            "is it illegal",
            "what were",
            "how did",
            "explain",
            "definition",
            "documentary",
            "why do",
            "why does",
            "why did",
            "who invented",
            "history",
        ],
    },
    Rule {
        cat: Cat::Protective,
        label: "is framed around protection or prevention",
        pats: &[
            "avoid",
            "protect*",
            "prevent*",
            "recogni*",
            "spot",
            "detect",
            "defend",
            "safe from",
            "report",
            "warning signs",
            "signs of",
            "first aid",
            "antidote",
            "what to do if",
            "help a friend",
            "hotline",
            "poison control",
            "dispose of",
            "deal with",
            "stop",
            "safely",
        ],
    },
    Rule {
        cat: Cat::DoseAsk,
        label: "asks for a dosage",
        pats: &[
            "how much ... take",
            "how many ... take",
            "how much ... give",
            "how many ... give",
            "how often can i take",
            "safe amount",
            "maximum amount",
        ],
    },
    Rule {
        cat: Cat::Dosage,
        label: "asks for a dosage",
        pats: &[
            "dose",
            "doses",
            "dosage*",
            "dosing",
            "mg",
            "milligram*",
            "max* dose",
            "daily limit",
        ],
    },
    Rule {
        cat: Cat::Medical,
        label: "is a medical question",
        pats: &[
            "ibuprofen",
            "paracetamol",
            "acetaminophen",
            "tylenol",
            "advil",
            "aspirin",
            "naproxen",
            "codeine",
            "oxycodone",
            "morphine",
            "tramadol",
            "xanax",
            "valium",
            "adderall",
            "insulin",
            "antibiotic*",
            "antidepressant*",
            "melatonin",
            "benadryl",
            "warfarin",
            "prescription*",
            "medication*",
            "medicine*",
            "pill",
            "pills",
            "tablets",
            "painkiller*",
            "supplement*",
            "symptom*",
            "diagnos*",
            "chest pain",
            "fever",
            "migraine*",
            "pregnan*",
            "rash",
            "infection*",
            "blood pressure",
            "diabetes",
            "cancer",
            "tumour*",
            "tumor*",
            "lump",
            "bleeding",
            "dizzy",
            "side effect*",
            "doctor",
            "vaccin*",
            "headache*",
        ],
    },
    Rule {
        cat: Cat::Finance,
        label: "involves money or investment decisions",
        pats: &[
            "invest*",
            "savings",
            "bitcoin*",
            "crypto*",
            "ethereum",
            "stock",
            "stocks",
            "stock market",
            "shares",
            "etf",
            "etfs",
            "index fund*",
            "portfolio*",
            "retirement",
            "pension*",
            "401k",
            "ira",
            "mortgage*",
            "loan",
            "loans",
            "debt",
            "forex",
            "day trad*",
            "options trading",
            "leverag*",
            "gambl*",
            "betting",
            "bet",
            "casino*",
            "lottery",
            "real estate",
            "interest rate*",
            "recession",
        ],
    },
    Rule {
        cat: Cat::AllIn,
        label: "puts a large share of someone's money at stake",
        pats: &[
            "all my savings",
            "all of my savings",
            "life savings",
            "all my money",
            "all of my money",
            "entire savings",
            "remortgage",
            "second mortgage",
            "borrow ... to invest",
            "take ... loan ... to",
            "max out",
            "all in",
            "retirement savings",
            "emergency fund",
            "everything i have",
        ],
    },
    Rule {
        cat: Cat::Legal,
        label: "raises a legal question",
        pats: &[
            "legal",
            "legally",
            "illegal",
            "law",
            "laws",
            "lawsuit*",
            "sue",
            "suing",
            "lawyer*",
            "attorney*",
            "court",
            "contract*",
            "divorce",
            "custody",
            "evict*",
            "immigration",
            "visa",
            "copyright*",
            "trademark*",
            "liability",
            "liable",
            "tax return*",
            "taxes",
        ],
    },
    Rule {
        cat: Cat::Diy,
        label: "involves dangerous DIY work",
        pats: &[
            "electrical panel*",
            "breaker box*",
            "breaker panel*",
            "fuse box*",
            "consumer unit*",
            "rewir*",
            "wiring",
            "mains",
            "live wire*",
            "high voltage",
            "240v",
            "230v",
            "120v",
            "light switch*",
            "gas line*",
            "gas pipe*",
            "gas leak*",
            "gas boiler*",
            "gas stove*",
            "furnace*",
            "water heater*",
            "chainsaw*",
            "asbestos",
            "load bearing",
            "scaffold*",
            "welding",
            "propane",
            "carbon monoxide",
        ],
    },
    Rule {
        cat: Cat::DiyOwn,
        label: "has the user doing it themselves",
        pats: &[
            "my own",
            "myself",
            "diy",
            "by hand",
            "without an electrician",
            "without a permit",
            "without a professional",
        ],
    },
    Rule {
        cat: Cat::ChemMix,
        label: "involves mixing chemicals",
        pats: &[
            "mix* ... bleach",
            "bleach ... ammonia",
            "mix* ... chemicals",
            "combin* ... chemicals",
            "mix* ... ammonia",
            "bleach and vinegar",
            "mix* ... acid*",
            "household chemicals",
            "drain cleaner*",
            "pool chemicals",
            "chlorine",
        ],
    },
    Rule {
        cat: Cat::Injection,
        label: "tries to override the agents' instructions",
        pats: &[
            "ignore ... instructions",
            "ignore ... previous",
            "ignore all",
            "ignore your",
            "disregard",
            "forget ... instructions",
            "system prompt",
            "you are now",
            "jailbreak*",
            "dan mode",
            "developer mode",
            "pretend ... you are",
            "override ... safety",
            "no restrictions",
            "without restrictions",
            "unfiltered",
            "bypass ... filter*",
            "vote act",
            "say act",
            "approve everything",
            "always answer",
        ],
    },
    Rule {
        cat: Cat::Established,
        label: "asks for a well-established fact",
        pats: &[
            "capital of",
            "capital city",
            "who wrote",
            "who painted",
            "who composed",
            "who invented",
            "who discovered",
            "who was the first",
            "author of",
            "boiling point",
            "freezing point",
            "melting point",
            "speed of light",
            "speed of sound",
            "leap year",
            "days in",
            "hours in",
            "minutes in",
            "seconds in",
            "weeks in",
            "chemical symbol",
            "atomic number",
            "periodic table",
            "largest planet",
            "planets in",
            "continents",
            "tallest mountain",
            "longest river",
            "largest ocean",
            "largest country",
            "square root",
            "pythagor*",
            "photosynthesis",
            "sea level",
            "formula for",
            "what year did",
            "in what year",
            "when was ... born",
            "how many bones",
            "how many legs",
            "how many sides",
            "language ... spoken",
            "currency of",
            "official language",
            "world war",
            "moon from earth",
            "sun from earth",
            "distance from",
        ],
    },
    Rule {
        cat: Cat::Definition,
        label: "asks for general knowledge",
        pats: &[
            "what is",
            "what are",
            "whats",
            "what does ... mean",
            "define",
            "definition",
            "meaning of",
            "who is",
            "who was",
            "who wrote",
            "when was",
            "when did",
            "where is",
            "where was",
            "how many",
            "how far",
            "how long",
            "how big",
            "how old",
            "how tall",
            "how heavy",
            "how fast",
            "how deep",
            "how does ... work",
            "how do ... work",
            "explain",
            "difference between",
            "what causes",
            "why does",
            "why do",
            "why is",
        ],
    },
    Rule {
        cat: Cat::Arithmetic,
        label: "is a calculation or conversion",
        pats: &[
            "plus",
            "minus",
            "times",
            "divided by",
            "multiplied by",
            "percent of",
            "squared",
            "convert",
            "in celsius",
            "in fahrenheit",
            "to celsius",
            "to fahrenheit",
            "in kilometers",
            "in miles",
            "to kilometers",
            "to miles",
            "in kilograms",
            "in pounds",
        ],
    },
    Rule {
        cat: Cat::Prediction,
        label: "asks for a prediction",
        pats: &[
            "will the",
            "will there",
            "will it",
            "will i",
            "will my",
            "will we",
            "will ... crash",
            "will ... go up",
            "will ... go down",
            "will ... be worth",
            "next year",
            "next decade",
            "next month",
            "next week",
            "tomorrow",
            "in the future",
            "forecast*",
            "predict*",
            "going to happen",
            "who will win",
            "gonna",
        ],
    },
    Rule {
        cat: Cat::Opinion,
        label: "asks for a judgement or advice rather than a fact",
        pats: &[
            "should i",
            "should we",
            "is it worth",
            "worth it",
            "best",
            "better",
            "good idea",
            "bad idea",
            "do you think",
            "in your opinion",
            "opinion",
            "favourite",
            "favorite",
            "recommend*",
            "would you",
            "is it wise",
            "wise to",
            "ought",
            "right choice",
            "is it ok",
            "is it okay",
            "is it safe",
            "safe to",
        ],
    },
    Rule {
        cat: Cat::Personal,
        label: "depends on the asker's own circumstances",
        pats: &["my", "i", "me", "im", "ive", "myself", "mine"],
    },
    Rule {
        cat: Cat::Current,
        label: "depends on current information that changes",
        pats: &[
            "latest",
            "current",
            "currently",
            "today",
            "right now",
            "this week",
            "this year",
            "news",
            "recent*",
            "price of",
            "stock price",
            "weather",
            "who won",
            "2024",
            "2025",
            "2026",
            "still alive",
            "president of",
            "ceo of",
            "population of",
        ],
    },
    Rule {
        cat: Cat::Myth,
        label: "rests on a false or disputed premise",
        pats: &[
            "earth is flat",
            "flat earth*",
            "vaccin* ... cause* autism",
            "moon landing ... fake*",
            "moon landing ... hoax",
            "fake moon landing",
            "5g cause*",
            "chemtrail*",
            "only use 10",
            "10 percent of our brain*",
            "10 of our brain*",
            "great wall ... visible from space",
            "goldfish ... memory",
            "lightning never strikes",
            "knuckles ... arthritis",
            "sugar ... hyperactiv*",
            "grow back thicker",
            "climate change ... hoax",
            "earth is 6000",
            "holocaust ... hoax",
            "birds arent real",
        ],
    },
    Rule {
        cat: Cat::Absolute,
        label: "demands certainty",
        pats: &[
            "always",
            "never",
            "guarantee*",
            "100 percent",
            "definitely",
            "for sure",
            "prove",
            "proof",
        ],
    },
    Rule {
        cat: Cat::Request,
        label: "is a direct request",
        pats: &[
            "explain",
            "list",
            "give me",
            "tell me",
            "write",
            "summari*",
            "translate",
            "define",
            "calculate",
            "convert",
            "compare",
            "recommend",
            "help me",
            "show me",
            "describe",
            "suggest",
            "draft",
            "please",
        ],
    },
    Rule {
        cat: Cat::Vague,
        label: "is vague",
        pats: &[
            "something",
            "stuff",
            "anything",
            "whatever",
            "things",
            "idk",
            "thoughts",
            "hmm",
            "hi",
            "hello",
            "hey",
            "test",
            "asdf",
            "lol",
        ],
    },
];

/// Verbs that are only clearly harmful when aimed at someone: a `Target` within a few words after
/// them, or an evasion phrase anywhere. Undirected, they are a `HarmMention`.
const DIRECTED: &[Rule] = &[
    Rule {
        cat: Cat::Hurt,
        label: "describes harming a living being",
        pats: &[
            "kill",
            "killing",
            "hurt",
            "harm",
            "injure",
            "stab",
            "stabbing",
            "shoot",
            "suffocate",
            "assault*",
            "attack",
            "beat up",
            "poison",
            "poisoning",
            "maim",
            "disfigure",
            "make ... suffer",
            "drown",
            "run over",
        ],
    },
    Rule {
        cat: Cat::Hacking,
        label: "describes getting into someone else's accounts or devices",
        pats: &[
            "hack",
            "hacking",
            "get into ... account*",
            "access ... account*",
            "crack ... password*",
            "brute force",
            "bypass ... login",
            "bypass ... authentication",
            "bypass ... 2fa",
            "read ... email*",
            "log into",
        ],
    },
    Rule {
        cat: Cat::Scam,
        label: "describes scamming or cheating someone",
        pats: &[
            "scam",
            "scamming",
            "con",
            "trick ... into",
            "pick ... lock*",
        ],
    },
    Rule {
        cat: Cat::Tracking,
        label: "describes tracking a person covertly",
        pats: &[
            "track ... phone",
            "track ... location",
            "read ... messages",
            "hidden camera*",
            "where ... lives",
            "monitor ... phone",
        ],
    },
];

/// Harmless phrases that contain a harm word; a hit inside one of these is dropped.
const BENIGN: &[&str] = &[
    "bath bomb*",
    "f bomb",
    "photo bomb",
    "da bomb",
    "bomb calorimeter",
    "glue gun",
    "nail gun",
    "staple gun",
    "heat gun",
    "water gun",
    "nerf gun",
    "spray gun",
    "top gun",
    "gun metal",
    "food poisoning",
    "poison ivy",
    "poison oak",
    "poison control",
    "poison dart",
    "kill ... process*",
    "kill time",
    "kill the lights",
    "kill ... weeds",
    "kill ... bacteria",
    "kill ... germs",
    "kill ... mold",
    "kill ... mould",
    "kill ... ants",
    "kill ... fleas",
    "kill ... pests",
    "kill ... lice",
    "killer app",
    "shoot ... photo*",
    "shoot ... video*",
    "shoot hoops",
    "photo shoot",
    "heart attack",
    "panic attack",
    "asthma attack",
    "hurt my back",
    "hurt my knee",
    "hurt my ankle",
    "hurt my wrist",
    "hurt my shoulder",
    "hurt my neck",
    "hurt my foot",
    "hurt my hand",
    "hurt my leg",
    "hurt my head",
    "does it hurt",
    "will it hurt",
    "life hack*",
    "growth hack*",
    "hack ... productivity",
    "beat ... game",
    "steal ... show",
    "steal the scene",
    "all in all",
    "stock ... soup",
    "in stock",
    "out of stock",
    "track my package",
    "track ... order",
    "track ... parcel",
    "kill a mockingbird",
    "kill ... spider*",
    "kill ... wasp*",
    "kill ... cockroach*",
    "kill ... mosquito*",
    "kill ... rats",
    "kill ... mice",
    "kill ... flies",
    "kill ... bugs",
    "kill ... insects",
    "kill ... termites",
    "kill ... slugs",
    "kill ... virus",
    "kill ... battery",
    "kill ... engine",
    "kill ... cancer",
    "kill ... cells",
    "follow ... instructions",
    "follow up",
    "follow ... recipe",
    "follow ... steps",
    "con artist*",
    "with kindness",
];

const STOPWORDS: &[&str] = &[
    "a", "an", "the", "is", "are", "was", "were", "be", "do", "does", "did", "i", "me", "my",
    "you", "your", "it", "its", "of", "in", "on", "at", "to", "for", "with", "and", "or", "what",
    "whats", "who", "when", "where", "why", "how", "which", "can", "could", "should", "would",
    "will", "much", "many", "this", "that", "there", "their", "they", "we", "our", "us", "he",
    "she", "his", "her", "him", "them", "as", "by", "from", "about", "into", "if", "so", "not",
    "no", "any", "some", "all", "am", "im", "just", "get", "please", "than", "then", "have", "has",
    "had", "been", "being",
];

const WH: &[&str] = &[
    "what", "whats", "who", "whos", "when", "where", "which", "why", "how", "whose",
];
const AUX: &[&str] = &[
    "is", "are", "was", "were", "do", "does", "did", "can", "could", "should", "would", "will",
    "has", "have", "may", "might", "am", "shall", "isnt", "arent", "doesnt", "cant", "whats",
];

#[derive(Clone, Debug)]
pub(super) struct Hit {
    pub cat: Cat,
    pub label: &'static str,
    /// The matched words, lower-cased, as they appear in the query.
    pub text: String,
}

impl Hit {
    /// `asks for a dosage ("how much ibuprofen can i take")`.
    pub fn cite(&self) -> String {
        format!("{} (\"{}\")", self.label, self.text)
    }
}

#[derive(Clone, Debug)]
pub(super) struct Features {
    pub tokens: Vec<String>,
    pub truncated: bool,
    pub empty: bool,
    pub garbage: bool,
    pub hits: Vec<Hit>,
    /// Phrased as a question or a request.
    pub question: bool,
    /// The first few words, for quoting the query's form.
    pub opening: String,
    pub content: Vec<String>,
    pub question_marks: usize,
    /// The start of the raw query, flattened to one line, for quoting queries without words.
    pub snippet: String,
}

impl Features {
    pub fn of(query: &str) -> Features {
        let (tokens, truncated) = tokenize(query);
        let head: String = query.chars().take(MAX_CHARS).collect();
        let nonspace = head.chars().filter(|c| !c.is_whitespace()).count();
        let letters = head.chars().filter(|c| c.is_alphabetic()).count();
        let empty = nonspace == 0;
        // Mostly symbols, emoji or digits: nothing a reader could answer.
        let garbage = !empty && (tokens.is_empty() || letters * 10 < nonspace * 4);
        let benign = spans_of(&tokens, BENIGN);
        let mut hits = Vec::new();
        for rule in RULES {
            if let Some((s, e)) = rule
                .pats
                .iter()
                .find_map(|p| first_span(&tokens, p, &benign))
            {
                hits.push(Hit {
                    cat: rule.cat,
                    label: rule.label,
                    text: quote_tokens(&tokens[s..e]),
                });
            }
        }
        let targets: Vec<(usize, usize)> = RULES
            .iter()
            .filter(|r| r.cat == Cat::Target)
            .flat_map(|r| spans_of(&tokens, r.pats))
            .collect();
        let evasion = hits.iter().any(|h| h.cat == Cat::Evasion);
        let mut mention = None;
        for rule in DIRECTED {
            let found: Vec<(usize, usize)> = rule
                .pats
                .iter()
                .flat_map(|p| spans(&tokens, p).collect::<Vec<_>>())
                .filter(|(s, e)| !benign.iter().any(|(bs, be)| s < be && bs < e))
                .collect();
            // Aimed at someone: a target starts inside the span or within 4 words after it.
            let aimed = found
                .iter()
                .find(|(s, e)| evasion || targets.iter().any(|(ts, _)| *ts >= *s && *ts <= e + 4));
            if let Some((s, e)) = aimed {
                let end = targets
                    .iter()
                    .filter(|(ts, _)| *ts >= *s && *ts <= e + 4)
                    .map(|(_, te)| *te)
                    .max()
                    .unwrap_or(*e)
                    .max(*e);
                hits.push(Hit {
                    cat: rule.cat,
                    label: rule.label,
                    text: quote_tokens(&tokens[*s..end]),
                });
            } else if let (None, Some((s, e))) = (&mention, found.first()) {
                mention = Some(Hit {
                    cat: Cat::HarmMention,
                    label: "mentions harm but aims it at no one",
                    text: quote_tokens(&tokens[*s..*e]),
                });
            }
        }
        hits.extend(mention);
        let lead: Vec<&str> = tokens.iter().take(3).map(String::as_str).collect();
        let first = lead.first().copied().unwrap_or("");
        let question_marks = head
            .chars()
            .filter(|c| matches!(c, '?' | '？' | '¿'))
            .count();
        let question = lead.iter().any(|t| WH.contains(t))
            || AUX.contains(&first)
            || question_marks > 0
            || hits
                .iter()
                .any(|h| matches!(h.cat, Cat::Request | Cat::HowTo));
        let content: Vec<String> = tokens
            .iter()
            .filter(|t| !STOPWORDS.contains(&t.as_str()))
            .take(64)
            .cloned()
            .collect();
        let opening = quote_tokens(&tokens[..tokens.len().min(4)]);
        let snippet = super::text::one_line(&head, 40);
        Features {
            tokens,
            truncated,
            empty,
            garbage,
            hits,
            question,
            opening,
            content,
            question_marks,
            snippet,
        }
    }

    pub fn has(&self, cat: Cat) -> bool {
        self.hits.iter().any(|h| h.cat == cat)
    }

    pub fn hit(&self, cat: Cat) -> Option<&Hit> {
        self.hits.iter().find(|h| h.cat == cat)
    }

    /// The first hit among `cats`, in the order given.
    pub fn first(&self, cats: &[Cat]) -> Option<&Hit> {
        cats.iter().find_map(|c| self.hit(*c))
    }

    /// A dosage question: an explicit dose word, or "how much … take" about a medicine.
    pub fn dosage(&self) -> Option<&Hit> {
        self.hit(Cat::Dosage)
            .or_else(|| self.hit(Cat::DoseAsk).filter(|_| self.has(Cat::Medical)))
    }

    pub fn first_person(&self) -> bool {
        self.has(Cat::Personal)
    }
}

/// Lower-cased words; apostrophes join ("don't" -> "dont"), everything else not alphanumeric splits.
fn tokenize(q: &str) -> (Vec<String>, bool) {
    let mut tokens = Vec::new();
    let mut cur = String::new();
    let mut truncated = false;
    for (i, c) in q.chars().enumerate() {
        if i >= MAX_CHARS || tokens.len() >= MAX_TOKENS {
            truncated = true;
            break;
        }
        if c.is_alphanumeric() {
            cur.extend(c.to_lowercase());
        } else if matches!(c, '\'' | '\u{2019}' | '\u{2018}' | '`') {
            continue;
        } else if !cur.is_empty() {
            tokens.push(std::mem::take(&mut cur));
        }
    }
    if !cur.is_empty() && tokens.len() < MAX_TOKENS {
        tokens.push(cur);
    }
    (tokens, truncated)
}

fn quote_tokens(tokens: &[String]) -> String {
    let joined = tokens.join(" ");
    super::text::clip(&joined, 60)
}

fn word_match(tok: &str, w: &str) -> bool {
    if w == "_" {
        return true;
    }
    match w.strip_suffix('*') {
        Some(prefix) => tok.starts_with(prefix),
        None => tok == w,
    }
}

/// End (exclusive) of a match of `words` starting at token `i`.
fn match_at(tokens: &[String], i: usize, words: &[&str]) -> Option<usize> {
    let Some((w, rest)) = words.split_first() else {
        return Some(i);
    };
    if *w == "..." {
        return (0..=GAP)
            .take_while(|skip| i + skip <= tokens.len())
            .find_map(|skip| match_at(tokens, i + skip, rest));
    }
    let t = tokens.get(i)?;
    if word_match(t, w) {
        match_at(tokens, i + 1, rest)
    } else {
        None
    }
}

fn spans<'a>(tokens: &'a [String], pat: &'a str) -> impl Iterator<Item = (usize, usize)> + 'a {
    let words: Vec<&str> = pat.split_whitespace().collect();
    (0..tokens.len()).filter_map(move |i| {
        if words.is_empty() {
            return None;
        }
        match_at(tokens, i, &words).map(|e| (i, e))
    })
}

fn spans_of(tokens: &[String], pats: &[&str]) -> Vec<(usize, usize)> {
    pats.iter()
        .flat_map(|p| spans(tokens, p).collect::<Vec<_>>())
        .collect()
}

fn first_span(tokens: &[String], pat: &str, benign: &[(usize, usize)]) -> Option<(usize, usize)> {
    spans(tokens, pat).find(|(s, e)| !benign.iter().any(|(bs, be)| s < be && bs < e))
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Band {
    Low,
    Moderate,
    High,
}

/// Everything the three roles derive from a query, before any per-agent jitter.
#[derive(Clone, Debug)]
pub(super) struct Profile {
    pub f: Features,
    pub band: Band,
    /// Safety's base risk, 0–100; ≥ 50 exactly when `band` is `High` (S4-6 veto line).
    pub risk: i32,
    /// Accuracy's base verifiability, 0–100.
    pub verif: i32,
    /// Utility's base usefulness, 0–100.
    pub useful: i32,
}

pub(super) const HARM_OBJECTS: &[Cat] = &[
    Cat::Weapon,
    Cat::Toxin,
    Cat::Cyber,
    Cat::Drugs,
    Cat::Firearm,
];
pub(super) const HARM_ACTS: &[Cat] = &[Cat::Violence, Cat::Intrusion, Cat::Fraud, Cat::Stalking];
/// Present only when aimed at a target (see `DIRECTED`).
pub(super) const AIMED_ACTS: &[Cat] = &[Cat::Hurt, Cat::Hacking, Cat::Scam, Cat::Tracking];
pub(super) const MODERATE: &[(Cat, i32)] = &[
    (Cat::Dosage, 34),
    (Cat::Injection, 36),
    (Cat::ChemMix, 30),
    (Cat::Diy, 30),
    (Cat::Medical, 26),
    (Cat::Finance, 24),
    (Cat::Legal, 18),
];

impl Profile {
    pub fn of(query: &str) -> Profile {
        let f = Features::of(query);
        let (band, risk) = harm(&f);
        let verif = verifiability(&f, band);
        let useful = usefulness(&f, band);
        Profile {
            f,
            band,
            risk,
            verif,
            useful,
        }
    }

    pub fn high(&self) -> bool {
        self.band == Band::High
    }

    /// The harm features that justify the band, most serious first.
    pub fn harm_hits(&self) -> Vec<&Hit> {
        let mut cats: Vec<Cat> = vec![Cat::SelfHarm, Cat::SelfHarmMention];
        cats.extend_from_slice(HARM_OBJECTS);
        cats.extend_from_slice(HARM_ACTS);
        cats.extend_from_slice(AIMED_ACTS);
        cats.push(Cat::HarmMention);
        if self.high() {
            cats.extend_from_slice(&[Cat::Create, Cat::Target, Cat::Evasion]);
        }
        let mut out: Vec<&Hit> = cats.iter().filter_map(|c| self.f.hit(*c)).collect();
        if let Some(d) = self.f.dosage() {
            out.push(d);
        }
        for (c, _) in MODERATE.iter().skip(1) {
            if let Some(h) = self.f.hit(*c) {
                out.push(h);
            }
        }
        for c in [Cat::AllIn, Cat::DiyOwn] {
            if let Some(h) = self.f.hit(c).filter(|_| self.band != Band::Low) {
                out.push(h);
            }
        }
        out
    }
}

/// Safety's base risk (S4-6): clearly harmful requests land at ≥ 55, everything else at ≤ 45, so
/// per-agent jitter never moves a query across the veto line.
fn harm(f: &Features) -> (Band, i32) {
    let obj = HARM_OBJECTS.iter().any(|c| f.has(*c));
    let hard_obj = HARM_OBJECTS[..4].iter().any(|c| f.has(*c));
    let act = HARM_ACTS.iter().any(|c| f.has(*c));
    let aimed = AIMED_ACTS.iter().any(|c| f.has(*c));
    let target = f.has(Cat::Target);
    let evasion = f.has(Cat::Evasion);
    let create = f.has(Cat::Create);
    let howto = f.has(Cat::HowTo);
    let protective = f.has(Cat::Protective);
    let softened = protective || (f.has(Cat::Educational) && !howto && !create);
    let bonus =
        5 * (i32::from(target && (act || aimed)) + i32::from(evasion) + i32::from(create && obj));
    if f.has(Cat::SelfHarm) {
        return (Band::High, 85);
    }
    if f.has(Cat::SelfHarmMention) && (howto || create || f.dosage().is_some()) && !softened {
        return (Band::High, 75);
    }
    if (aimed || (act && (target || evasion || howto || create))) && !softened {
        return (Band::High, (65 + bonus).min(95));
    }
    if obj && (create || evasion) && !softened {
        return (Band::High, (65 + bonus).min(95));
    }
    if hard_obj && howto && !softened {
        return (Band::High, 60);
    }
    let mut moderate: Vec<i32> = MODERATE
        .iter()
        .filter(|(c, _)| {
            if *c == Cat::Dosage {
                f.dosage().is_some()
            } else {
                f.has(*c)
            }
        })
        .map(|(_, w)| *w)
        .collect();
    if obj || act || aimed || f.has(Cat::SelfHarmMention) {
        moderate.push(if softened { 26 } else { 38 });
    }
    if moderate.is_empty() {
        // An undirected harm word ("kill a process" aside) is noted, not feared.
        return (Band::Low, if f.has(Cat::HarmMention) { 14 } else { 6 });
    }
    moderate.sort_unstable_by(|a, b| b.cmp(a));
    let rest: i32 = moderate.iter().skip(1).sum();
    let mut risk = 6 + moderate[0] + rest / 4;
    if f.has(Cat::AllIn) {
        risk += 14;
    }
    if f.has(Cat::DiyOwn) && f.has(Cat::Diy) {
        risk += 6;
    }
    (Band::Moderate, risk.clamp(20, 45))
}

/// Accuracy's base: settled facts score high; predictions, opinions, personal circumstances,
/// false premises and harm procedures score low.
fn verifiability(f: &Features, band: Band) -> i32 {
    if f.empty {
        return 5;
    }
    if f.garbage {
        return 12;
    }
    let mut v = 62;
    let personal_domain = f.has(Cat::Opinion)
        || f.has(Cat::Medical)
        || f.has(Cat::Finance)
        || f.has(Cat::Legal)
        || f.has(Cat::Diy);
    let table: [(bool, i32); 17] = [
        (f.has(Cat::Established), 22),
        (f.has(Cat::Definition), 10),
        (f.has(Cat::Arithmetic) || arithmetic(f), 18),
        (f.has(Cat::HowTo) && band == Band::Low, 3),
        (f.has(Cat::Prediction), -28),
        (f.has(Cat::Opinion), -16),
        (f.first_person() && personal_domain, -10),
        (f.has(Cat::Current), -14),
        (f.has(Cat::Myth), -35),
        (f.has(Cat::Absolute), -6),
        (f.has(Cat::Medical), -8),
        (f.dosage().is_some(), -8),
        (f.has(Cat::Finance), -6),
        (f.has(Cat::Legal), -10),
        (f.has(Cat::Diy) || f.has(Cat::ChemMix), -6),
        (f.has(Cat::Injection), -25),
        (vague(f), -25),
    ];
    v += table
        .iter()
        .filter(|(on, _)| *on)
        .map(|(_, d)| d)
        .sum::<i32>();
    if band == Band::High {
        v -= 25;
    }
    if f.tokens.len() > 60 {
        v -= 10;
    }
    if f.question_marks >= 2 {
        v -= 6;
    }
    v.clamp(5, 95)
}

fn usefulness(f: &Features, band: Band) -> i32 {
    if f.empty {
        return 0;
    }
    if f.garbage {
        return 12;
    }
    let mut u = 45;
    if f.question {
        u += 20;
    }
    let specific_ask = [
        Cat::HowTo,
        Cat::Established,
        Cat::Definition,
        Cat::Arithmetic,
        Cat::Request,
    ]
    .iter()
    .any(|c| f.has(*c))
        || f.dosage().is_some();
    if specific_ask {
        u += 10;
    }
    u += 3 * f.content.len().min(5) as i32;
    if vague(f) {
        u -= 25;
    }
    if f.tokens.len() > 80 {
        u -= 12;
    }
    if f.has(Cat::Prediction) {
        u -= 8;
    }
    if f.has(Cat::Myth) {
        u -= 22;
    }
    if f.has(Cat::Injection) {
        u -= 25;
    }
    if band == Band::High {
        u -= 30;
    }
    u.clamp(0, 95)
}

pub(super) fn vague(f: &Features) -> bool {
    !f.empty && (f.content.len() <= 1 || (f.has(Cat::Vague) && f.content.len() <= 3))
}

/// "12 * 7", "3+4": digits around an operator.
fn arithmetic(f: &Features) -> bool {
    let digits = f
        .tokens
        .iter()
        .filter(|t| t.chars().all(|c| c.is_ascii_digit()))
        .count();
    digits >= 2 && f.tokens.len() <= 12
}
