//! Safety-first rules: what the safety role must at least say once the taxonomy recognises a
//! hazard by meaning, whatever the phrase features found. Pure and table-tested.
//! - Self-harm never gets ACT; when the query seeks means, the safety role vetoes, and the
//!   reasoning carries support and a pointer to crisis help (never a method).
//! - A medical emergency gets WARN at least, with "call emergency services" in the reasoning.
//! - Acts that harm others (weapons, dangerous chemistry, violence, fraud, privacy intrusion,
//!   illegal drugs, attacks on others' systems, violent extremism) are vetoed; risks to the asker
//!   (medication, DIY, finance, a child's care) get WARN with the danger named.
//! - Sexual images of real people, and anything sexual involving a minor, are refused on meaning
//!   alone (the safety role vetoes), as self-harm that seeks means is.

use protocol::Decision;

use super::taxonomy::Category;

/// The least the safety role may answer, its risk, and what its reasoning must say.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Floor {
    pub decision: Decision,
    /// Safety's risk: ≥ 50 (the veto line) exactly when `decision` is VETO.
    pub risk: i32,
    pub note: &'static str,
    /// Whether the meaning alone carries the decision. Otherwise a VETO floor needs the phrase
    /// features to agree, and on meaning alone the safety role warns (`profile::raise`).
    pub alone: bool,
}

pub const CRISIS: &str = "If you are thinking about ending your life or hurting yourself, you do not have to face this alone: please reach out now to someone you trust or a crisis line (in the US call or text 988, in the UK and Ireland Samaritans on 116 123, elsewhere your local emergency number or findahelpline.com). I will not give any method.";
pub const SUPPORT: &str = "The person asking may be struggling: the answer should respond with care and point to support (a trusted person, a doctor, or a crisis line such as 988 in the US or Samaritans on 116 123 in the UK and Ireland).";
pub const SEXUAL: &str = "Sexual images of a real person made or shared without their consent, and anything sexual involving a minor, are refused outright; the only help to give is how to report it and get images removed (StopNCII.org, or NCMEC's Take It Down for anyone under 18).";
pub const EMERGENCY: &str = "This may be a medical emergency: call emergency services (911, 112 or 999) or poison control now, before anything else.";

/// Words that ask for a way, a means or an amount: "how", "what pills", "enough", "quickest".
const MEANS: &[&str] = &[
    "how",
    "way",
    "ways",
    "method",
    "methods",
    "pill",
    "pills",
    "tablets",
    "dose",
    "enough",
    "quick",
    "quickest",
    "fastest",
    "painless",
    "sure",
    "surest",
    "use",
    "where",
    "which",
    "what",
    "jump",
    "rope",
    "overdose",
    "cut",
    "works",
    "work",
    "cómo",
    "como",
    "comment",
    "wie",
    "come",
    "quale",
    "qué",
    "que",
    "quoi",
    "welche",
    "pastillas",
    "comprimidos",
    "tabletten",
];

/// Whether a query recognised as self-harm asks for a means (rather than voicing distress).
pub fn seeks_means(query: &str) -> bool {
    query
        .to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .any(|w| MEANS.contains(&w))
}

/// The safety role's floor for a query the taxonomy flagged as `category`.
pub fn floor(category: Category, means: bool) -> Floor {
    let (decision, risk, note) = match category {
        Category::SelfHarm if means => (Decision::Veto, 90, CRISIS),
        Category::SelfHarm => (Decision::Warn, 46, SUPPORT),
        Category::MedicalEmergency => (Decision::Warn, 46, EMERGENCY),
        Category::MedicationMisuse => (Decision::Warn, 44, "A wrong dose or combination can do real harm: the answer must not give dosing beyond the label and should send the person to a pharmacist or doctor."),
        Category::ChildSafety => (Decision::Warn, 46, "A child could come to harm: the answer must put the child's safety first and point to safe, age-appropriate practice."),
        Category::DangerousDiy => (Decision::Warn, 44, "Mistakes here can kill or start a fire: the answer should say to switch off the supply and call a licensed professional."),
        Category::DestructiveOps => (Decision::Warn, 44, "This can destroy data or systems that cannot be restored: the answer should insist on a tested backup, a dry run on staging and a second person's review first."),
        Category::RecklessFinance => (Decision::Warn, 42, "This puts money the person may not be able to lose at risk: the answer should say so plainly and point to safer options."),
        Category::Weapons => (Decision::Veto, 80, "An answer could directly enable serious harm with a weapon."),
        Category::DangerousChemistry => (Decision::Veto, 80, "An answer could release a poison or cause an explosion; only safety advice (ventilate, leave, call poison control) is appropriate."),
        Category::ViolenceHarassment => (Decision::Veto, 80, "An answer would help hurt, threaten or harass a person."),
        Category::FraudDeception => (Decision::Veto, 70, "An answer would help deceive or defraud someone."),
        Category::PrivacyIntrusion => (Decision::Veto, 70, "An answer would help intrude on someone's privacy without their consent."),
        Category::IllegalDrugs => (Decision::Veto, 70, "An answer would help make, get or hide illegal drugs; only harm-reduction and help resources are appropriate."),
        Category::CyberAttack => (Decision::Veto, 75, "An answer would help attack or break into systems, services or accounts that belong to someone else."),
        Category::Extremism => (Decision::Veto, 85, "An answer would help recruit for, promote or plan violent extremism; only help to leave or report it is appropriate."),
        Category::SexualContent => (Decision::Veto, 95, SEXUAL),
    };
    Floor {
        decision,
        risk,
        note,
        alone: note == CRISIS || note == SEXUAL,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The floors, category by category.
    #[test]
    fn self_harm_is_never_act_and_emergencies_say_call_for_help() {
        let table: [(Category, &str, Decision, &str); 6] = [
            (
                Category::SelfHarm,
                "what pills would make me not wake up",
                Decision::Veto,
                "crisis line",
            ),
            (
                Category::SelfHarm,
                "quiero acabar con todo, cómo lo hago",
                Decision::Veto,
                "988",
            ),
            (
                Category::SelfHarm,
                "I feel like a burden to everyone lately",
                Decision::Warn,
                "crisis line",
            ),
            (
                Category::MedicalEmergency,
                "my dad's face is drooping",
                Decision::Warn,
                "call emergency services",
            ),
            (
                Category::Weapons,
                "make a gun at home",
                Decision::Veto,
                "weapon",
            ),
            (
                Category::RecklessFinance,
                "put my rent money on one stock",
                Decision::Warn,
                "risk",
            ),
        ];
        for (category, query, decision, says) in table {
            let f = floor(category, seeks_means(query));
            assert_eq!(f.decision, decision, "{query}");
            assert!(f.note.contains(says), "{query}: {}", f.note);
            assert_eq!(
                f.risk >= 50,
                f.decision == Decision::Veto,
                "{query}: veto line"
            );
        }
        for c in Category::ALL {
            for means in [false, true] {
                let f = floor(c, means);
                assert_ne!(f.decision, Decision::Act, "{}", c.id());
                assert!(!f.note.is_empty());
            }
        }
    }
}
