#include "hook/decision/python_modules.h"

#include <algorithm>
#include <iterator>

namespace toolcage::hook {

namespace {

struct PureModule {
    std::string_view name;
    std::string_view names;  // separated by single spaces, each followed by one
};

// From each module's own public names (not what it imports), less what reads or writes files,
// changes the process (time.tzset, calendar.different_locale, copy.dispatch_table), hands out
// internals (datetime.datetime_CAPI) or looks attributes up by string (string.Formatter's
// get_field, which is why operator and string.Formatter are absent). Python 3.11's names; a name
// a later Python adds is refused until listed.
constexpr PureModule kPureModules[] = {
    {"json",
         "JSONDecodeError JSONDecoder JSONEncoder detect_encoding dumps loads "},
    {"math",
         "acos acosh asin asinh atan atan2 atanh cbrt ceil comb copysign cos cosh "
         "degrees dist e erf erfc exp exp2 expm1 fabs factorial floor fmod frexp fsum "
         "gamma gcd hypot inf isclose isfinite isinf isnan isqrt lcm ldexp lgamma log "
         "log10 log1p log2 modf nan nextafter perm pi pow prod radians remainder sin "
         "sinh sqrt tan tanh tau trunc ulp "},
    {"cmath",
         "acos acosh asin asinh atan atanh cos cosh e exp inf infj isclose isfinite "
         "isinf isnan log log10 nan nanj phase pi polar rect sin sinh sqrt tan tanh tau "},
    {"re",
         "A ASCII DOTALL I IGNORECASE L LOCALE M MULTILINE Match NOFLAG Pattern "
         "RegexFlag S U UNICODE VERBOSE X compile error escape findall finditer "
         "fullmatch match search split sub subn "},
    {"statistics",
         "LinearRegression NormalDist StatisticsError correlation covariance fmean "
         "geometric_mean harmonic_mean linear_regression mean median median_grouped "
         "median_high median_low mode multimode pstdev pvariance quantiles stdev tau "
         "variance "},
    {"datetime",
         "MAXYEAR MINYEAR UTC date datetime time timedelta timezone tzinfo "},
    {"time",
         "CLOCK_BOOTTIME CLOCK_MONOTONIC CLOCK_MONOTONIC_RAW CLOCK_PROCESS_CPUTIME_ID "
         "CLOCK_REALTIME CLOCK_TAI CLOCK_THREAD_CPUTIME_ID altzone asctime clock_getres "
         "clock_gettime clock_gettime_ns ctime daylight get_clock_info gmtime localtime "
         "mktime monotonic monotonic_ns perf_counter perf_counter_ns process_time "
         "process_time_ns pthread_getcpuclockid sleep strftime strptime struct_time "
         "thread_time thread_time_ns time time_ns timezone tzname "},
    {"calendar",
         "Calendar EPOCH FRIDAY February HTMLCalendar IllegalMonthError "
         "IllegalWeekdayError January LocaleHTMLCalendar LocaleTextCalendar MONDAY "
         "SATURDAY SUNDAY THURSDAY TUESDAY TextCalendar WEDNESDAY calendar day_abbr "
         "day_name error firstweekday isleap leapdays mdays month month_abbr month_name "
         "monthcalendar monthrange prweek timegm week weekday weekheader "},
    {"collections",
         "ChainMap Counter OrderedDict UserDict UserList UserString defaultdict deque "
         "namedtuple "},
    {"itertools",
         "accumulate chain combinations combinations_with_replacement compress count "
         "cycle dropwhile filterfalse groupby islice pairwise permutations product "
         "repeat starmap takewhile tee zip_longest "},
    {"functools",
         "WRAPPER_ASSIGNMENTS WRAPPER_UPDATES cache cached_property cmp_to_key "
         "lru_cache partial partialmethod reduce singledispatch singledispatchmethod "
         "total_ordering update_wrapper wraps "},
    {"textwrap",
         "TextWrapper dedent fill indent shorten wrap "},
    {"decimal",
         "BasicContext Clamped Context ConversionSyntax Decimal DecimalException "
         "DecimalTuple DefaultContext DivisionByZero DivisionImpossible "
         "DivisionUndefined ExtendedContext FloatOperation HAVE_CONTEXTVAR HAVE_THREADS "
         "Inexact InvalidContext InvalidOperation MAX_EMAX MAX_PREC MIN_EMIN MIN_ETINY "
         "Overflow ROUND_05UP ROUND_CEILING ROUND_DOWN ROUND_FLOOR ROUND_HALF_DOWN "
         "ROUND_HALF_EVEN ROUND_HALF_UP ROUND_UP Rounded Subnormal Underflow getcontext "
         "localcontext setcontext "},
    {"fractions",
         "Fraction "},
    {"random",
         "BPF LOG4 NV_MAGICCONST RECIP_BPF Random SG_MAGICCONST SystemRandom TWOPI "
         "betavariate choice choices expovariate gammavariate gauss getrandbits "
         "getstate lognormvariate normalvariate paretovariate randbytes randint random "
         "randrange sample seed setstate shuffle triangular uniform vonmisesvariate "
         "weibullvariate "},
    {"hashlib",
         "algorithms_available algorithms_guaranteed blake2b blake2s md5 new "
         "pbkdf2_hmac scrypt sha1 sha224 sha256 sha384 sha3_224 sha3_256 sha3_384 "
         "sha3_512 sha512 shake_128 shake_256 "},
    {"base64",
         "MAXBINSIZE MAXLINESIZE a85decode a85encode b16decode b16encode b32decode "
         "b32encode b32hexdecode b32hexencode b64decode b64encode b85decode b85encode "
         "decodebytes encodebytes standard_b64decode standard_b64encode "
         "urlsafe_b64decode urlsafe_b64encode "},
    {"binascii",
         "Error Incomplete a2b_base64 a2b_hex a2b_qp a2b_uu b2a_base64 b2a_hex b2a_qp "
         "b2a_uu crc32 crc_hqx hexlify unhexlify "},
    {"struct",
         "Struct calcsize error iter_unpack pack pack_into unpack unpack_from "},
    {"heapq",
         "heapify heappop heappush heappushpop heapreplace merge nlargest nsmallest "},
    {"bisect",
         "bisect bisect_left bisect_right insort insort_left insort_right "},
    {"copy",
         "Error copy deepcopy error "},
    {"pprint",
         "PrettyPrinter isreadable isrecursive pformat pp pprint saferepr "},
    {"unicodedata",
         "bidirectional category combining decimal decomposition digit east_asian_width "
         "is_normalized lookup mirrored name normalize numeric ucd_3_2_0 "
         "unidata_version "},
    {"difflib",
         "Differ HtmlDiff IS_CHARACTER_JUNK IS_LINE_JUNK Match SequenceMatcher "
         "context_diff diff_bytes get_close_matches ndiff restore unified_diff "},
    {"html",
         "escape unescape "},
    {"zlib",
         "DEFLATED DEF_BUF_SIZE DEF_MEM_LEVEL MAX_WBITS ZLIB_RUNTIME_VERSION "
         "ZLIB_VERSION Z_BEST_COMPRESSION Z_BEST_SPEED Z_BLOCK Z_DEFAULT_COMPRESSION "
         "Z_DEFAULT_STRATEGY Z_FILTERED Z_FINISH Z_FIXED Z_FULL_FLUSH Z_HUFFMAN_ONLY "
         "Z_NO_COMPRESSION Z_NO_FLUSH Z_PARTIAL_FLUSH Z_RLE Z_SYNC_FLUSH Z_TREES "
         "adler32 compress compressobj crc32 decompress decompressobj error "},
    {"numbers",
         "Complex Integral Number Rational Real "},
    {"enum",
         "CONFORM CONTINUOUS EJECT Enum EnumCheck EnumMeta EnumType Flag FlagBoundary "
         "IntEnum IntFlag KEEP NAMED_FLAGS ReprEnum STRICT StrEnum UNIQUE auto member "
         "nonmember show_flag_values unique verify "},
    {"array",
         "ArrayType array typecodes "},
    {"string",
         "Template ascii_letters ascii_lowercase ascii_uppercase capwords digits "
         "hexdigits octdigits printable punctuation whitespace "},
};

const PureModule* find(std::string_view module) {
    auto it = std::find_if(std::begin(kPureModules), std::end(kPureModules),
                           [&](const PureModule& m) { return m.name == module; });
    return it == std::end(kPureModules) ? nullptr : &*it;
}

}  // namespace

bool pure_module(std::string_view module) { return find(module) != nullptr; }

bool pure_module_name(std::string_view module, std::string_view name) {
    const PureModule* m = find(module);
    if (!m || name.empty() || name.find(' ') != std::string_view::npos) return false;
    for (std::size_t at = 0; (at = m->names.find(name, at)) != std::string_view::npos; at += name.size())
        if ((at == 0 || m->names[at - 1] == ' ') && at + name.size() < m->names.size() &&
            m->names[at + name.size()] == ' ')
            return true;
    return false;
}

}  // namespace toolcage::hook
