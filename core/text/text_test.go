package text

import (
	"strings"
	"testing"
)

// porter2Vocabulary is the sample vocabulary printed on the Snowball
// English stemmer page (snowballstem.org/algorithms/english/stemmer.html),
// with the algorithm's special words.
var porter2Vocabulary = `consign consign
consigned consign
consigning consign
consignment consign
consist consist
consisted consist
consistency consist
consistent consist
consistently consist
consisting consist
consists consist
consolation consol
consolations consol
consolatory consolatori
console consol
consoled consol
consoles consol
consolidate consolid
consolidated consolid
consolidating consolid
consoling consol
consolingly consol
consols consol
consonant conson
consort consort
consorted consort
consorting consort
conspicuous conspicu
conspicuously conspicu
conspiracy conspiraci
conspirator conspir
conspirators conspir
conspire conspir
conspired conspir
conspiring conspir
constable constabl
constables constabl
constance constanc
constancy constanc
constant constant
knack knack
knackeries knackeri
knacks knack
knag knag
knave knave
knaves knave
knavish knavish
kneaded knead
kneading knead
knee knee
kneel kneel
kneeled kneel
kneeling kneel
kneels kneel
knees knee
knell knell
knelt knelt
knew knew
knick knick
knif knif
knife knife
knight knight
knightly knight
knights knight
knit knit
knits knit
knitted knit
knitting knit
knives knive
knob knob
knobs knob
knock knock
knocked knock
knocker knocker
knockers knocker
knocking knock
knocks knock
knopp knopp
knot knot
knots knot
skis ski
skies sky
dying die
lying lie
tying tie
idly idl
gently gentl
ugly ugli
early earli
only onli
singly singl
sky sky
news news
atlas atlas
cosmos cosmos
bias bias
andes andes
inning inning
outing outing
canning canning
herring herring
earring earring
proceed proceed
exceed exceed
succeed succeed
generous generous
generously generous
communism communism
arsenal arsenal
ties tie
cries cri
gas gas
gaps gap
kiwis kiwi
cry cri
by by
say say
hopping hop
vetted vet
luxuriated luxuri
caresses caress
ponies poni
cats cat
feed feed
agreed agre
plastered plaster
motoring motor
sing sing
conflated conflat
troubled troubl
sized size
hopeful hope
goodness good
relational relat
conditional condit
rational ration
valenci valenc
digitizer digit
operator oper
feudalism feudal
decisiveness decis
hopefulness hope
callousness callous
formaliti formal
sensitiviti sensit
sensibiliti sensibl
triplicate triplic
formative format
formalize formal
electriciti electr
electrical electr
revival reviv
allowance allow
inference infer
airliner airlin
gyroscopic gyroscop
adjustable adjust
defensible defens
irritant irrit
replacement replac
adjustment adjust
dependent depend
adoption adopt
homologou homologou
communication communic
activate activ
angulariti angular
homologous homolog
effective effect
bowdlerize bowdler`

func TestPorter2Vocabulary(t *testing.T) {
	n := 0
	for _, line := range strings.Split(porter2Vocabulary, "\n") {
		f := strings.Fields(line)
		if len(f) != 2 {
			t.Fatalf("bad vocabulary line %q", line)
		}
		n++
		if got := Porter2(f[0]); got != f[1] {
			t.Errorf("Porter2(%q) = %q, want %q", f[0], got, f[1])
		}
	}
	if n < 150 {
		t.Fatalf("only %d vocabulary cases", n)
	}
}

func TestStemSharesIrregularForms(t *testing.T) {
	for _, c := range [][2]string{
		{"people", "person"}, {"born", "birth"}, {"paid", "pay"}, {"died", "death"}, {"sold", "sell"},
		{"rented", "rent"}, {"hired", "hire"}, {"hires", "hire"}, {"shipped", "shipping"},
		{"categories", "category"}, {"returned", "return"},
	} {
		if a, b := Stem(c[0]), Stem(c[1]); a != b {
			t.Errorf("Stem(%q) = %q, Stem(%q) = %q: want the same stem", c[0], a, c[1], b)
		}
	}
	for _, c := range [][2]string{{"order", "ordinal"}, {"city", "cite"}, {"general", "generous"}} {
		if a, b := Stem(c[0]), Stem(c[1]); a == b {
			t.Errorf("Stem(%q) and Stem(%q) are both %q", c[0], c[1], a)
		}
	}
}

func TestWords(t *testing.T) {
	for _, c := range []struct {
		in   string
		want string
	}{
		{"orderDate", "order date"},
		{"HTTPServer2Go", "http server 2 go"},
		{"order_items", "order items"},
		{"Order Details", "order details"},
		{"birthCountry", "birth country"},
		{"lgID", "lg id"},
		{"TOTAL_CLAIM_COST", "total claim cost"},
		{"address2", "address 2"},
		{"東京 São-Paulo", "東京 sao paulo"},
		{"Zürich", "zurich"},
	} {
		if got := strings.Join(Words(c.in), " "); got != c.want {
			t.Errorf("Words(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		max  int
		want int
	}{
		{"employes", "employees", 2, 1},
		{"flihgts", "flights", 2, 1},
		{"hypertention", "hypertension", 2, 1},
		{"canda", "canada", 2, 1},
		{"buisness", "business", 2, 1},
		{"kitten", "sitting", 3, 3},
		{"kitten", "sitting", 2, 3},
		{"abc", "abc", 0, 0},
		{"a", "abcdef", 2, 3},
		{"", "ab", 2, 2},
	} {
		if got := Distance(c.a, c.b, c.max); got != c.want {
			t.Errorf("Distance(%q, %q, %d) = %d, want %d", c.a, c.b, c.max, got, c.want)
		}
	}
}

func TestDerived(t *testing.T) {
	for _, c := range [][2]string{{"rent", "rental"}, {"departing", "departure"}, {"employ", "employee"}, {"deliver", "delivery"}} {
		if !Derived(Stem(c[0]), Stem(c[1])) {
			t.Errorf("Derived(%q, %q) = false (stems %q, %q)", c[0], c[1], Stem(c[0]), Stem(c[1]))
		}
	}
	for _, c := range [][2]string{{"order", "ordinal"}, {"car", "career"}, {"rent", "rent"}, {"art", "artist"}, {"grad", "grade"}} {
		if Derived(Stem(c[0]), Stem(c[1])) {
			t.Errorf("Derived(%q, %q) = true", c[0], c[1])
		}
	}
}

func TestRelated(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want Relation
	}{
		{"prescribe", "prescription", DerivedForm},
		{"teacher", "teach", DerivedForm},
		{"job", "occupation", Synonym},
		{"occupation", "job", Synonym},
		{"teach", "teacher", DerivedForm},
		{"woman", "adult", Broader},
		{"adult", "woman", Unrelated}, // a class does not name its members
		{"invoice", "zebra", Unrelated},
		{"born", "physicist", Unrelated}, // proper nouns (Max Born) are left out
	} {
		if got := Related(Stem(tc.a), Stem(tc.b)); got != tc.want {
			t.Errorf("Related(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

// BenchmarkRelatedLoad times reading the embedded WordNet relations:
//
//	go test ./core/text -run '^$' -bench RelatedLoad
func BenchmarkRelatedLoad(b *testing.B) {
	for b.Loop() {
		loadWordnet()
	}
}

func TestCompound(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string
	}{
		{"borrowernumber", "borrower number"},
		{"deathdate", "death date"},
		{"dateofbirth", "date of birth"},
		{"homebranch", "home branch"},
		{"encounterclass", "encounter class"},
		{"surname", "surname"},       // a word itself
		{"customer", "customer"},     // a word itself
		{"xqzvbnmlk", "xqzvbnmlk"},   // no split
		{"bibliocode", "bibliocode"}, // one part is not a word
		{"itemid", "itemid"},         // too short to split
	} {
		if got := strings.Join(Compound(tc.in), " "); got != tc.want {
			t.Errorf("Compound(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got := strings.Join(NameWords("ENCOUNTERCLASS_code"), " "); got != "encounter class code" {
		t.Errorf("NameWords = %q", got)
	}
}

func TestAbbreviates(t *testing.T) {
	for _, c := range [][2]string{{"qty", "quantity"}, {"dept", "department"}, {"amt", "amount"}, {"lvl", "level"},
		{"cred", "credit"}, {"hrs", "hour"}, {"pts", "point"}, {"yrs", "year"}} {
		if !Abbreviates(c[0], c[1]) {
			t.Errorf("Abbreviates(%q, %q) = false", c[0], c[1])
		}
	}
	// English words are not abbreviations of longer words whose letters
	// they happen to contain in order.
	for _, c := range [][2]string{{"die", "driver"}, {"cost", "cardiologist"}, {"pass", "passeng"}, {"cap", "capacity"},
		{"qty", "qty"}, {"ab", "about"}, {"qty", "xquantity"}, {"dept", "dep"}} {
		if Abbreviates(c[0], c[1]) {
			t.Errorf("Abbreviates(%q, %q) = true", c[0], c[1])
		}
	}
}

func TestInflected(t *testing.T) {
	for _, c := range [][2]string{{"rejected", "reject"}, {"withdrawn", "withdraw"}, {"withdrew", "withdrawn"}, {"sick", "sick"}, {"refuses", "refuse"}} {
		if !Inflected(c[0], c[1]) {
			t.Errorf("Inflected(%q, %q) = false", c[0], c[1])
		}
	}
	for _, c := range [][2]string{{"departed", "department"}, {"personality", "person"}, {"general", "generation"}} {
		if Inflected(c[0], c[1]) {
			t.Errorf("Inflected(%q, %q) = true", c[0], c[1])
		}
	}
}

func TestSingularAndPlural(t *testing.T) {
	for _, c := range []struct{ one, many string }{
		{"customer", "customers"}, {"category", "categories"}, {"box", "boxes"},
		{"address", "addresses"},
		{"match", "matches"}, {"wish", "wishes"}, {"day", "days"}, {"boy", "boys"},
		{"order item", "order items"}, {"Order Detail", "Order Details"}, {"CITY", "CITIES"},
	} {
		if got := Plural(c.one); got != c.many {
			t.Errorf("Plural(%q) = %q, want %q", c.one, got, c.many)
		}
		if got := Singular(c.many); got != c.one {
			t.Errorf("Singular(%q) = %q, want %q", c.many, got, c.one)
		}
		if got := Plural(c.many); got != c.many {
			t.Errorf("Plural(%q) of a plural = %q, want it unchanged", c.many, got)
		}
		if got := Singular(c.one); got != c.one {
			t.Errorf("Singular(%q) of a singular = %q, want it unchanged", c.one, got)
		}
	}
	// Words in -us take -es, but -uses is not undone (houses, causes).
	for _, w := range []string{"status", "campus"} {
		if got := Plural(w); got != w+"es" {
			t.Errorf("Plural(%q) = %q, want %q", w, got, w+"es")
		}
		if got := Singular(w); got != w {
			t.Errorf("Singular(%q) = %q, want it unchanged", w, got)
		}
	}
	if got := Plural(""); got != "" {
		t.Errorf(`Plural("") = %q`, got)
	}
}
