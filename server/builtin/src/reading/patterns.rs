//! The phrase tables the builtin agents match queries against (see `features`). Data only.

/// What a phrase signals: a harm, a modifier of harm, or a domain.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Signal {
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
    /// About a game: a weapon or a bomb in a game hurts no one …
    Game,
    /// … unless the real thing is asked for.
    RealThing,
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

pub(crate) struct Rule {
    pub cat: Signal,
    pub label: &'static str,
    pub pats: &'static [&'static str],
}

/// Patterns: space-separated words; `w*` is a prefix, `_` any one word, `...` up to `GAP` words.
/// Apostrophes join words ("neighbour's" -> "neighbours"), so patterns are written that way.
#[rustfmt::skip]
pub(crate) const RULES: &[Rule] = &[
    Rule { cat: Signal::SelfHarm, label: "signals a risk of self-harm", pats: &[
        "kill myself", "killing myself", "end my life", "end it all", "take my own life",
        "hurt myself", "harm myself", "cut myself", "cutting myself", "want to die",
        "suicide method*", "commit suicide", "painless way to die", "to overdose", "overdose on",
        "lethal dose", "best way to die",
    ] },
    Rule { cat: Signal::SelfHarmMention, label: "mentions suicide, self-harm or overdose", pats: &[
        "suicid*", "self harm*", "selfharm*", "overdos*",
    ] },
    Rule { cat: Signal::Weapon, label: "is about weapons or explosives", pats: &[
        "pipe bomb*", "bomb", "bombs", "explosive*", "detonat*", "ied", "ieds", "grenade*",
        "molotov*", "napalm", "thermite", "c4", "semtex", "tnt", "dynamite", "gunpowder",
        "landmine*", "bioweapon*", "biological weapon*", "chemical weapon*", "nerve agent*",
        "sarin", "ricin", "anthrax", "dirty bomb", "nuclear weapon*", "weapon", "weapons",
    ] },
    Rule { cat: Signal::Firearm, label: "involves firearms", pats: &[
        "ghost gun*", "untraceable gun*", "gun", "guns", "firearm*", "rifle*", "pistol*", "ammo",
        "ammunition", "silencer*", "suppressor*", "full auto", "auto sear",
    ] },
    Rule { cat: Signal::Toxin, label: "involves a poison or toxic agent", pats: &[
        "toxic gas*", "poison gas*", "poisonous gas*", "chlorine gas", "mustard gas", "nerve gas",
        "phosgene", "cyanide", "arsenic", "strychnine", "thallium", "botulinum", "deadly poison*",
        "untraceable poison*", "toxic fumes",
    ] },
    Rule { cat: Signal::Cyber, label: "involves malicious software", pats: &[
        "malware", "ransomware", "keylogger*", "key logger*", "spyware", "stalkerware", "trojan*",
        "rootkit*", "botnet*", "computer virus*", "a virus that", "ddos*", "phishing",
        "infostealer*", "password stealer*", "credential stuffing", "exploit kit*", "backdoor*",
    ] },
    Rule { cat: Signal::Drugs, label: "involves illegal drugs", pats: &[
        "meth", "methamphetamine", "crystal meth", "fentanyl", "carfentanil", "heroin", "cocaine",
        "crack cocaine", "lsd", "mdma", "ecstasy", "ghb", "pcp", "dmt", "ketamine",
    ] },
    Rule { cat: Signal::Violence, label: "describes violence against a living being", pats: &[
        "murder*", "assassinat*", "kidnap*", "abduct*", "torture*", "massacre", "mass shooting",
        "shoot up", "acid attack", "strangle*", "behead*", "spike ... drink*", "school shooting",
    ] },
    Rule { cat: Signal::Intrusion, label: "describes breaking into someone else's accounts or systems", pats: &[
        "hack into", "hacking into", "break into ... account*", "steal* ... password*",
        "steal* ... credential*", "steal* ... login*",
    ] },
    Rule { cat: Signal::Fraud, label: "describes fraud or theft", pats: &[
        "steal", "steals", "stealing", "shoplift*", "launder*", "money laundering", "counterfeit*",
        "forge", "forging", "forged", "fake id*", "fake passport*", "identity theft",
        "credit card fraud", "commit fraud", "insurance fraud", "tax evasion", "evade taxes",
        "embezzl*", "hotwire", "break into ... car", "break into ... house", "burglar*", "rob",
        "robbing", "blackmail*", "extort*",
    ] },
    Rule { cat: Signal::Stalking, label: "describes covert surveillance of a person", pats: &[
        "spy on", "spying on", "stalk", "stalking", "secretly record*", "doxx*", "dox",
    ] },
    Rule { cat: Signal::Create, label: "seeks to make or build it", pats: &[
        "make", "making", "build", "building", "create", "creating", "write", "writing", "code",
        "synthesi*", "cook", "cooking", "manufactur*", "assemble", "produce", "brew", "extract",
        "3d print*", "recipe*", "instructions", "step by step", "blueprint*", "schematic*", "mix",
        "combine", "develop",
    ] },
    Rule { cat: Signal::HowTo, label: "asks for step-by-step help", pats: &[
        "how do i", "how can i", "how could i", "how would i", "how should i", "how to",
        "how do you", "how does one", "how can you", "how can we", "ways to", "way to", "teach me",
        "show me", "help me", "tell me how", "i want to", "i need to", "im going to",
        "i am going to", "i plan to", "planning to", "give me", "steps to", "guide to", "tips for",
        "can i", "could i",
    ] },
    Rule { cat: Signal::Target, label: "names a victim", pats: &[
        "someone", "somebody", "someones", "person", "people", "peoples", "him", "her", "them",
        "neighbour*", "neighbor*", "coworker*", "co worker*", "colleague*", "boss", "wife", "wifes",
        "husband*", "girlfriend*", "boyfriend*", "partner*", "my ex", "roommate*", "flatmate*",
        "classmate*", "teacher*", "child", "children", "childs", "kid", "kids", "baby", "dog",
        "dogs", "cat", "cats", "pet", "pets", "animal*", "stranger*", "ex", "exs", "family",
        "mother", "father", "mom", "dad", "brother", "sister", "landlord*", "police", "president",
        "politician*", "witness", "victim*", "school", "crowd", "employer*", "woman", "women",
        "man", "men", "girl", "guy",
    ] },
    Rule { cat: Signal::Evasion, label: "wants to avoid detection", pats: &[
        "without getting caught", "without being caught", "not get caught", "dont get caught",
        "avoid getting caught", "get away with", "without ... knowing", "without ... noticing",
        "without a trace", "untraceable", "undetectable", "cover my tracks", "no one will know",
        "nobody will know", "hide the body", "destroy evidence", "avoid detection", "evade police",
        "without ... permission", "without ... consent",
    ] },
    Rule { cat: Signal::Educational, label: "is framed as a question about facts", pats: &[
        "what is", "what are", "whats", "history of", "who invented", "how does ... work",
        "how do ... work", "why is", "why are", "what happens", "is it illegal", "what were",
        "how did", "explain", "definition", "documentary", "why do", "why does", "why did",
        "who invented", "history",
    ] },
    Rule { cat: Signal::Protective, label: "is framed around protection or prevention", pats: &[
        "avoid", "protect*", "prevent*", "recogni*", "spot", "detect", "defend", "safe from",
        "report", "warning signs", "signs of", "first aid", "antidote", "what to do if",
        "help a friend", "hotline", "poison control", "dispose of", "deal with", "stop", "safely",
    ] },
    Rule { cat: Signal::Game, label: "is about a game", pats: &[
        "video game*", "videogame*", "in game", "ingame", "in the game", "computer game*",
        "board game*", "gameplay", "multiplayer", "pvp", "pve", "loadout*", "speedrun*",
        "boss fight*", "skill tree", "dps", "npc", "npcs", "xp", "respawn*", "minecraft",
        "elden ring", "dark souls", "fortnite", "warzone", "call of duty", "counter strike", "csgo",
        "valorant", "apex legends", "overwatch", "league of legends", "dota", "skyrim",
        "zelda", "pokemon", "roblox", "gta", "grand theft auto", "destiny 2", "diablo",
        "world of warcraft", "wow classic", "baldurs gate", "cyberpunk 2077", "terraria",
        "battlefield", "pubg", "rainbow six", "dungeons and dragons", "dnd", "tabletop",
    ] },
    Rule { cat: Signal::RealThing, label: "asks for the real thing", pats: &[
        "real", "actual", "actually", "irl", "in real life", "real life", "real world", "working",
        "that works", "functional", "functioning",
    ] },
    Rule { cat: Signal::DoseAsk, label: "asks for a dosage", pats: &[
        "how much ... take", "how many ... take", "how much ... give", "how many ... give",
        "how often can i take", "safe amount", "maximum amount",
    ] },
    Rule { cat: Signal::Dosage, label: "asks for a dosage", pats: &[
        "dose", "doses", "dosage*", "dosing", "mg", "milligram*", "max* dose", "daily limit",
    ] },
    Rule { cat: Signal::Medical, label: "is a medical question", pats: &[
        "ibuprofen", "paracetamol", "acetaminophen", "tylenol", "advil", "aspirin", "naproxen",
        "codeine", "oxycodone", "morphine", "tramadol", "xanax", "valium", "adderall", "insulin",
        "antibiotic*", "antidepressant*", "melatonin", "benadryl", "warfarin", "prescription*",
        "medication*", "medicine*", "pill", "pills", "tablets", "painkiller*", "supplement*",
        "symptom*", "diagnos*", "chest pain", "fever", "migraine*", "pregnan*", "rash",
        "infection*", "blood pressure", "diabetes", "cancer", "tumour*", "tumor*", "lump",
        "bleeding", "dizzy", "side effect*", "doctor", "vaccin*", "headache*",
    ] },
    Rule { cat: Signal::Finance, label: "involves money or investment decisions", pats: &[
        "bitcoin*", "crypto*", "ethereum", "stock market", "stocks", "stock", "invest*", "savings",
        "shares", "etf", "etfs", "index fund*", "portfolio*", "retirement", "pension*", "401k",
        "ira", "mortgage*", "loan", "loans", "debt", "forex", "day trad*", "options trading",
        "leverag*", "gambl*", "betting", "bet", "casino*", "lottery", "real estate",
        "interest rate*", "recession",
    ] },
    Rule { cat: Signal::AllIn, label: "puts a large share of someone's money at stake", pats: &[
        "all my savings", "all of my savings", "life savings", "all my money", "all of my money",
        "entire savings", "remortgage", "second mortgage", "borrow ... to invest",
        "take ... loan ... to", "max out", "all in", "retirement savings", "emergency fund",
        "everything i have",
    ] },
    Rule { cat: Signal::Legal, label: "raises a legal question", pats: &[
        "legal", "legally", "illegal", "law", "laws", "lawsuit*", "sue", "suing", "lawyer*",
        "attorney*", "court", "contract*", "divorce", "custody", "evict*", "immigration", "visa",
        "copyright*", "trademark*", "liability", "liable", "tax return*", "taxes",
    ] },
    Rule { cat: Signal::Diy, label: "involves dangerous DIY work", pats: &[
        "electrical panel*", "breaker box*", "breaker panel*", "fuse box*", "consumer unit*",
        "rewir*", "wiring", "mains", "live wire*", "high voltage", "240v", "230v", "120v",
        "light switch*", "gas line*", "gas pipe*", "gas leak*", "gas boiler*", "gas stove*",
        "furnace*", "water heater*", "chainsaw*", "asbestos", "load bearing", "scaffold*",
        "welding", "propane", "carbon monoxide",
    ] },
    Rule { cat: Signal::DiyOwn, label: "has the user doing it themselves", pats: &[
        "my own", "myself", "diy", "by hand", "without an electrician", "without a permit",
        "without a professional",
    ] },
    Rule { cat: Signal::ChemMix, label: "involves mixing chemicals", pats: &[
        "mix* ... bleach", "bleach ... ammonia", "mix* ... chemicals", "combin* ... chemicals",
        "mix* ... ammonia", "bleach and vinegar", "mix* ... acid*", "household chemicals",
        "drain cleaner*", "pool chemicals", "chlorine",
    ] },
    Rule { cat: Signal::Injection, label: "tries to override the agents' instructions", pats: &[
        "ignore ... instructions", "ignore ... previous", "ignore all", "ignore your", "disregard",
        "forget ... instructions", "system prompt", "you are now", "jailbreak*", "dan mode",
        "developer mode", "pretend ... you are", "override ... safety", "no restrictions",
        "without restrictions", "unfiltered", "bypass ... filter*", "vote act", "say act",
        "approve everything", "always answer",
    ] },
    Rule { cat: Signal::Established, label: "asks for a well-established fact", pats: &[
        "capital of", "capital city", "who wrote", "who painted", "who composed", "who invented",
        "who discovered", "who was the first", "author of", "boiling point", "freezing point",
        "melting point", "speed of light", "speed of sound", "leap year", "days in", "hours in",
        "minutes in", "seconds in", "weeks in", "chemical symbol", "atomic number",
        "periodic table", "largest planet", "planets in", "continents", "tallest mountain",
        "longest river", "largest ocean", "largest country", "square root", "pythagor*",
        "photosynthesis", "sea level", "formula for", "what year did", "in what year",
        "when was ... born", "how many bones", "how many legs", "how many sides",
        "language ... spoken", "currency of", "official language", "world war", "moon from earth",
        "sun from earth", "distance from", "history of", "origin of", "origins of", "historia de",
        "historia da", "historia do", "storia del", "storia della", "storia dei", "geschichte der",
        "geschichte des", "histoire de", "geschiedenis van",
    ] },
    Rule { cat: Signal::Definition, label: "asks for general knowledge", pats: &[
        "translate", "how do you say", "spell", "synonym*", "antonym*",
        "what is", "what are", "whats", "what does ... mean", "define", "definition", "meaning of",
        "who is", "who was", "who wrote", "when was", "when did", "where is", "where was",
        "how many", "how far", "how long", "how big", "how old", "how tall", "how heavy",
        "how fast", "how deep", "how does ... work", "how do ... work", "explain",
        "difference between", "what causes", "why does", "why do", "why is",
    ] },
    Rule { cat: Signal::Arithmetic, label: "is a calculation or conversion", pats: &[
        "plus", "minus", "times", "divided by", "multiplied by", "percent of", "squared", "convert",
        "in celsius", "in fahrenheit", "to celsius", "to fahrenheit", "in kilometers", "in miles",
        "to kilometers", "to miles", "in kilograms", "in pounds",
    ] },
    Rule { cat: Signal::Prediction, label: "asks for a prediction", pats: &[
        "will the", "will there", "will it", "will i", "will my", "will we", "will ... crash",
        "will ... go up", "will ... go down", "will ... be worth", "next year", "next decade",
        "next month", "next week", "tomorrow", "in the future", "forecast*", "predict*",
        "going to happen", "who will win", "gonna",
    ] },
    Rule { cat: Signal::Opinion, label: "asks for a judgement or advice rather than a fact", pats: &[
        "should i", "should we", "is it worth", "worth it", "best", "better", "good idea",
        "bad idea", "do you think", "in your opinion", "opinion", "favourite", "favorite",
        "recommend*", "would you", "is it wise", "wise to", "ought", "right choice", "is it ok",
        "is it okay", "is it safe", "safe to",
    ] },
    Rule { cat: Signal::Personal, label: "depends on the asker's own circumstances", pats: &[
        "my own _", "my _", "for me", "should i", "can i", "do i", "i have", "im", "i am", "ive",
        "my", "i", "me", "myself", "mine",
    ] },
    Rule { cat: Signal::Current, label: "depends on current information that changes", pats: &[
        "latest", "current", "currently", "today", "right now", "this week", "this year", "news",
        "recent*", "price of", "stock price", "weather", "who won", "2024", "2025", "2026",
        "still alive", "president of", "ceo of", "population of",
    ] },
    Rule { cat: Signal::Myth, label: "rests on a false or disputed premise", pats: &[
        "earth is flat", "flat earth*", "vaccin* ... cause* autism", "moon landing ... fake*",
        "moon landing ... hoax", "fake moon landing", "5g cause*", "chemtrail*", "only use 10",
        "10 percent of our brain*", "10 of our brain*", "great wall ... visible from space",
        "goldfish ... memory", "lightning never strikes", "knuckles ... arthritis",
        "sugar ... hyperactiv*", "grow back thicker", "climate change ... hoax", "earth is 6000",
        "holocaust ... hoax", "birds arent real",
    ] },
    Rule { cat: Signal::Absolute, label: "demands certainty", pats: &[
        "always", "never", "guarantee*", "100 percent", "definitely", "for sure", "prove", "proof",
    ] },
    Rule { cat: Signal::Request, label: "is a direct request", pats: &[
        "explain", "list", "give me", "tell me", "write", "summari*", "translate", "define",
        "calculate", "convert", "compare", "recommend", "help me", "show me", "describe", "suggest",
        "draft", "please",
        // A topic to be told about: "history of …", "… explained", "… vs …".
        "explained", "meaning", "summary", "history of", "origin of", "origins of", "overview",
        "for dummies", "eli5", "vs", "versus", "documentar*", "books about", "book about",
        "movies about", "films about", "historia", "storia", "geschichte", "histoire",
        "geschiedenis", "significa", "significado", "signification", "bedeutung", "betekenis",
        "znaczenie", "anlami", "anlamı", "trama", "ne demek",
    ] },
    Rule { cat: Signal::Vague, label: "is vague", pats: &[
        "something", "stuff", "anything", "whatever", "things", "idk", "thoughts", "hmm", "hi",
        "hello", "hey", "test", "asdf", "lol",
    ] },
];

/// Verbs that are only clearly harmful when aimed at someone: a `Target` within a few words after
/// them, or an evasion phrase anywhere. Undirected, they are a `HarmMention`.
#[rustfmt::skip]
pub(crate) const DIRECTED: &[Rule] = &[
    Rule { cat: Signal::Hurt, label: "describes harming a living being", pats: &[
        "kill", "killing", "hurt", "harm", "injure", "stab", "stabbing", "shoot", "suffocate",
        "assault*", "attack", "beat up", "poison", "poisoning", "maim", "disfigure",
        "make ... suffer", "drown", "run over",
    ] },
    Rule { cat: Signal::Hacking, label: "describes getting into someone else's accounts or devices", pats: &[
        "hack", "hacking", "get into ... account*", "access ... account*", "crack ... password*",
        "brute force", "bypass ... login", "bypass ... authentication", "bypass ... 2fa",
        "read ... email*", "log into",
    ] },
    Rule { cat: Signal::Scam, label: "describes scamming or cheating someone", pats: &[
        "scam", "scamming", "con", "trick ... into", "pick ... lock*",
    ] },
    Rule { cat: Signal::Tracking, label: "describes tracking a person covertly", pats: &[
        "track ... phone", "track ... location", "read ... messages", "hidden camera*",
        "where ... lives", "monitor ... phone",
    ] },
];

/// Harmless phrases that contain a harm word; a hit inside one of these is dropped.
#[rustfmt::skip]
pub(crate) const BENIGN: &[&str] = &[
    "bath bomb*", "bomb proof", "shoot ... portrait*", "f bomb", "photo bomb", "da bomb", "bomb calorimeter", "glue gun", "nail gun",
    "staple gun", "heat gun", "water gun", "nerf gun", "spray gun", "top gun", "gun metal",
    "food poisoning", "poison ivy", "poison oak", "poison control", "poison dart",
    "kill ... process*", "kill time", "kill the lights", "kill ... weeds", "kill ... bacteria",
    "kill ... germs", "kill ... mold", "kill ... mould", "kill ... ants", "kill ... fleas",
    "kill ... pests", "kill ... lice", "killer app", "shoot ... photo*", "shoot ... video*",
    "shoot hoops", "photo shoot", "heart attack", "panic attack", "asthma attack", "hurt my back",
    "hurt my knee", "hurt my ankle", "hurt my wrist", "hurt my shoulder", "hurt my neck",
    "hurt my foot", "hurt my hand", "hurt my leg", "hurt my head", "does it hurt", "will it hurt",
    "life hack*", "growth hack*", "hack ... productivity", "beat ... game", "steal ... show",
    "steal the scene", "all in all", "stock ... soup", "in stock", "out of stock",
    "track my package", "track ... order", "track ... parcel", "kill a mockingbird",
    "kill ... spider*", "kill ... wasp*", "kill ... cockroach*", "kill ... mosquito*",
    "kill ... rats", "kill ... mice", "kill ... flies", "kill ... bugs", "kill ... insects",
    "kill ... termites", "kill ... slugs", "kill ... virus", "kill ... battery", "kill ... engine",
    "kill ... cancer", "kill ... cells", "follow ... instructions", "follow up",
    "follow ... recipe", "follow ... steps", "con artist*", "with kindness",
];

#[rustfmt::skip]
pub(crate) const STOPWORDS: &[&str] = &[
    "a", "an", "the", "is", "are", "was", "were", "be", "do", "does", "did", "i", "me", "my", "you",
    "your", "it", "its", "of", "in", "on", "at", "to", "for", "with", "and", "or", "what", "whats",
    "who", "when", "where", "why", "how", "which", "can", "could", "should", "would", "will",
    "much", "many", "this", "that", "there", "their", "they", "we", "our", "us", "he", "she", "his",
    "her", "him", "them", "as", "by", "from", "about", "into", "if", "so", "not", "no", "any",
    "some", "all", "am", "im", "just", "get", "please", "than", "then", "have", "has", "had",
    "been", "being",
];
