/**
 * Which zone a region of a country with several zones keeps.
 *
 * A table of our own, kept on purpose small: countries-and-timezones maps
 * countries to zones and i18n-iso-countries names countries, but neither goes
 * below the country, and the IANA database itself says which region a zone
 * covers only in comments of zone.tab, which Node's Intl does not carry. So
 * the regions of the countries whose zones leads most often span are listed
 * here: US states, Canadian provinces and territories, Australian states and
 * territories, and the states, subjects and provinces of Brazil, Mexico,
 * Russia and Indonesia, each by its ISO 3166-2 code and English name.
 *
 * A region split between zones keeps the zone most of its people live in
 * (Texas: Central, not El Paso's Mountain; Florida: Eastern; Idaho: Boise).
 * regions.test.ts checks that every zone here is one Intl knows and one that
 * countries-and-timezones gives the country, so a renamed zone fails a test.
 */
export const REGION_ZONES: Record<string, Record<string, string>> = {
  US: {
    'America/New_York':
      'CT Connecticut; DE Delaware; DC District of Columbia, Washington DC, Washington D C; FL Florida; GA Georgia; ME Maine; MD Maryland; MA Massachusetts; NH New Hampshire; NJ New Jersey; NY New York; NC North Carolina; OH Ohio; PA Pennsylvania; RI Rhode Island; SC South Carolina; VT Vermont; VA Virginia; WV West Virginia; KY Kentucky',
    'America/Detroit': 'MI Michigan',
    'America/Indiana/Indianapolis': 'IN Indiana',
    'America/Chicago':
      'AL Alabama; AR Arkansas; IL Illinois; IA Iowa; KS Kansas; LA Louisiana; MN Minnesota; MS Mississippi; MO Missouri; NE Nebraska; ND North Dakota; OK Oklahoma; SD South Dakota; TN Tennessee; TX Texas; WI Wisconsin',
    'America/Denver': 'CO Colorado; MT Montana; NM New Mexico; UT Utah; WY Wyoming',
    'America/Boise': 'ID Idaho',
    'America/Phoenix': 'AZ Arizona',
    'America/Los_Angeles': 'CA California; NV Nevada; OR Oregon; WA Washington, Washington State',
    'America/Anchorage': 'AK Alaska',
    'Pacific/Honolulu': 'HI Hawaii',
    // The territories, for a lead whose country says United States (their own country codes have one zone each).
    // The Virgin Islands keep Puerto Rico's time, the Northern Marianas Guam's (the IANA database makes them links).
    'America/Puerto_Rico': 'PR Puerto Rico; VI U.S. Virgin Islands, US Virgin Islands, United States Virgin Islands',
    'Pacific/Guam': 'GU Guam; MP Northern Mariana Islands',
    'Pacific/Pago_Pago': 'AS American Samoa',
  },
  // Countries most of whose people keep one zone (MAIN_ZONES) list only the regions that keep another.
  ES: { 'Atlantic/Canary': 'CN Canarias, Canary Islands, Islas Canarias; GC Las Palmas; TF Santa Cruz de Tenerife' },
  PT: { 'Atlantic/Azores': '20 Azores, Açores, Região Autónoma dos Açores', 'Atlantic/Madeira': '30 Madeira, Região Autónoma da Madeira' },
  NZ: { 'Pacific/Chatham': 'CIT Chatham Islands, Chatham, Chatham Islands Territory' },
  CL: {
    'America/Punta_Arenas': 'MA Magallanes, Magallanes y de la Antártica Chilena, Magallanes and Chilean Antarctica',
    'Pacific/Easter': 'IPC Isla de Pascua, Easter Island, Rapa Nui',
  },
  EC: { 'Pacific/Galapagos': 'W Galápagos, Galapagos, Galapagos Islands' },
  CA: {
    'America/St_Johns': 'NL Newfoundland and Labrador, Newfoundland',
    'America/Halifax': 'NS Nova Scotia; PE Prince Edward Island',
    'America/Moncton': 'NB New Brunswick',
    'America/Toronto': 'ON Ontario; QC Quebec, Québec',
    'America/Iqaluit': 'NU Nunavut',
    'America/Winnipeg': 'MB Manitoba',
    'America/Regina': 'SK Saskatchewan',
    'America/Edmonton': 'AB Alberta; NT Northwest Territories',
    'America/Vancouver': 'BC British Columbia',
    'America/Whitehorse': 'YT Yukon',
  },
  AU: {
    'Australia/Sydney': 'NSW New South Wales; ACT Australian Capital Territory',
    'Australia/Melbourne': 'VIC Victoria',
    'Australia/Brisbane': 'QLD Queensland',
    'Australia/Adelaide': 'SA South Australia',
    'Australia/Darwin': 'NT Northern Territory',
    'Australia/Perth': 'WA Western Australia',
    'Australia/Hobart': 'TAS Tasmania',
  },
  BR: {
    'America/Sao_Paulo':
      'SP São Paulo; RJ Rio de Janeiro; MG Minas Gerais; ES Espírito Santo; PR Paraná; SC Santa Catarina; RS Rio Grande do Sul; GO Goiás; DF Distrito Federal, Federal District',
    'America/Bahia': 'BA Bahia',
    'America/Fortaleza': 'CE Ceará; RN Rio Grande do Norte; PI Piauí; MA Maranhão; PB Paraíba',
    'America/Recife': 'PE Pernambuco',
    'America/Maceio': 'AL Alagoas; SE Sergipe',
    'America/Belem': 'PA Pará; AP Amapá',
    'America/Araguaina': 'TO Tocantins',
    'America/Cuiaba': 'MT Mato Grosso',
    'America/Campo_Grande': 'MS Mato Grosso do Sul',
    'America/Porto_Velho': 'RO Rondônia',
    'America/Manaus': 'AM Amazonas',
    'America/Boa_Vista': 'RR Roraima',
    'America/Rio_Branco': 'AC Acre',
  },
  MX: {
    'America/Mexico_City':
      'AGU Aguascalientes; CMX Ciudad de México, Mexico City; COL Colima; CHP Chiapas; GRO Guerrero; GUA Guanajuato; HID Hidalgo; JAL Jalisco; MEX México, State of Mexico; MIC Michoacán; MOR Morelos; OAX Oaxaca; PUE Puebla; QUE Querétaro; SLP San Luis Potosí; TAB Tabasco; TLA Tlaxcala; VER Veracruz; ZAC Zacatecas',
    'America/Monterrey': 'NLE Nuevo León; COA Coahuila; TAM Tamaulipas; DUR Durango',
    'America/Merida': 'YUC Yucatán; CAM Campeche',
    'America/Cancun': 'ROO Quintana Roo',
    'America/Chihuahua': 'CHH Chihuahua',
    // The border city keeps US Mountain time since 2022, apart from the rest of its state.
    'America/Ciudad_Juarez': 'JUA Ciudad Juárez, Juárez',
    'America/Mazatlan': 'SIN Sinaloa; BCS Baja California Sur; NAY Nayarit',
    'America/Hermosillo': 'SON Sonora',
    'America/Tijuana': 'BCN Baja California',
  },
  ID: {
    'Asia/Jakarta':
      'AC Aceh; SU North Sumatra, Sumatera Utara; SB West Sumatra, Sumatera Barat; RI Riau; KR Riau Islands, Kepulauan Riau; JA Jambi; SS South Sumatra, Sumatera Selatan; BE Bengkulu; LA Lampung; BB Bangka Belitung Islands, Kepulauan Bangka Belitung; BT Banten; JK Jakarta, DKI Jakarta; JB West Java, Jawa Barat; JT Central Java, Jawa Tengah; YO Yogyakarta, DI Yogyakarta; JI East Java, Jawa Timur',
    'Asia/Pontianak': 'KB West Kalimantan, Kalimantan Barat; KT Central Kalimantan, Kalimantan Tengah',
    'Asia/Makassar':
      'BA Bali; NB West Nusa Tenggara, Nusa Tenggara Barat; NT East Nusa Tenggara, Nusa Tenggara Timur; KS South Kalimantan, Kalimantan Selatan; KI East Kalimantan, Kalimantan Timur; KU North Kalimantan, Kalimantan Utara; SA North Sulawesi, Sulawesi Utara; ST Central Sulawesi, Sulawesi Tengah; SN South Sulawesi, Sulawesi Selatan; SG Southeast Sulawesi, Sulawesi Tenggara; GO Gorontalo; SR West Sulawesi, Sulawesi Barat',
    'Asia/Jayapura':
      'MA Maluku; MU North Maluku, Maluku Utara; PA Papua; PB West Papua, Papua Barat; PS South Papua, Papua Selatan; PT Central Papua, Papua Tengah; PE Highland Papua, Papua Pegunungan; PD Southwest Papua, Papua Barat Daya',
  },
  RU: {
    'Europe/Kaliningrad': 'KGD Kaliningrad',
    'Europe/Moscow':
      'MOW Moscow; SPE Saint Petersburg, St Petersburg; MOS Moscow Oblast; LEN Leningrad; AD Adygea; ARK Arkhangelsk; BEL Belgorod; BRY Bryansk; VLA Vladimir; VLG Vologda; VOR Voronezh; IVA Ivanovo; KB Kabardino-Balkaria; KC Karachay-Cherkessia; KLU Kaluga; KR Karelia; KO Komi; KOS Kostroma; KDA Krasnodar; KRS Kursk; LIP Lipetsk; ME Mari El; MO Mordovia; MUR Murmansk; NEN Nenets; NIZ Nizhny Novgorod; NGR Novgorod; ORL Oryol; PNZ Penza; PSK Pskov; ROS Rostov; RYA Ryazan; SE North Ossetia, North Ossetia-Alania; SMO Smolensk; STA Stavropol; TAM Tambov; TVE Tver; TUL Tula; YAR Yaroslavl; CE Chechnya, Chechen Republic; IN Ingushetia; DA Dagestan; KL Kalmykia; TA Tatarstan; CU Chuvashia',
    'Europe/Kirov': 'KIR Kirov',
    'Europe/Volgograd': 'VGG Volgograd',
    'Europe/Samara': 'SAM Samara; UD Udmurtia',
    'Europe/Astrakhan': 'AST Astrakhan',
    'Europe/Saratov': 'SAR Saratov',
    'Europe/Ulyanovsk': 'ULY Ulyanovsk',
    'Asia/Yekaterinburg':
      'SVE Sverdlovsk; CHE Chelyabinsk; KGN Kurgan; TYU Tyumen; ORE Orenburg; PER Perm; BA Bashkortostan; KHM Khanty-Mansi; YAN Yamalo-Nenets',
    'Asia/Omsk': 'OMS Omsk',
    'Asia/Novosibirsk': 'NVS Novosibirsk',
    'Asia/Barnaul': 'ALT Altai Krai; AL Altai Republic',
    'Asia/Tomsk': 'TOM Tomsk',
    'Asia/Novokuznetsk': 'KEM Kemerovo, Kuzbass',
    'Asia/Krasnoyarsk': 'KYA Krasnoyarsk; TY Tuva; KK Khakassia',
    'Asia/Irkutsk': 'IRK Irkutsk; BU Buryatia',
    'Asia/Chita': 'ZAB Zabaykalsky',
    'Asia/Yakutsk': 'SA Sakha, Yakutia; AMU Amur',
    'Asia/Vladivostok': 'PRI Primorsky; KHA Khabarovsk; YEV Jewish Autonomous Oblast',
    'Asia/Magadan': 'MAG Magadan',
    'Asia/Sakhalin': 'SAK Sakhalin',
    'Asia/Kamchatka': 'KAM Kamchatka',
    'Asia/Anadyr': 'CHU Chukotka',
  },
};

/**
 * The zone of a country of several zones where most of its people live: a lead there is far likelier in it
 * than in the campaign's (a Shanghai lead of a New York campaign would otherwise get mail at 3 a.m.). Not the
 * United States, Canada, Australia, Brazil, Russia, Mexico or Indonesia, whose people are spread over their
 * zones: those need the region. The regions that keep another time are in REGION_ZONES and come first.
 */
export const MAIN_ZONES: Record<string, string> = {
  CN: 'Asia/Shanghai',
  ES: 'Europe/Madrid',
  PT: 'Europe/Lisbon',
  NZ: 'Pacific/Auckland',
  CL: 'America/Santiago',
  EC: 'America/Guayaquil',
};
